package import OpenPushCore
import OpenPushDelivery
package import Postgres

extension UserStore {
    /// Creates a user, or — when some of the aliases already name one user — merges into that
    /// user (`created: false`), OneSignal's behaviour. Aliases of two different users, or one
    /// held by another user, are a `409`. A shared demo tenant (`tenantID`) merges only into a
    /// user of its own (`403`, see `TenantAccess.requireOwnUser`).
    package static func create(_ creation: UserCreation, appID: String, tenantID: String? = nil, now: Double,
                              in database: PostgresPool) async throws -> (user: UserRecord, created: Bool) {
        try await conflictsAs409 {
            try await database.transaction { connection in
                var owners: Set<String> = []
                for (label, value) in creation.identity {
                    if let owner = try owner(label: label, value: value, appID: appID, in: connection) { owners.insert(owner) }
                }
                guard owners.count <= 1 else { throw APIError(status: 409, "the aliases in identity belong to different users") }
                let created = owners.isEmpty
                let userID = owners.first ?? Identifier.make(prefix: "usr", now: now, random: KeyMaterial.identifierEntropy())
                if let existing = owners.first {
                    try TenantAccess.requireOwnUser(existing, appID: appID, tenantID: tenantID, in: connection)
                }
                if created {
                    try insertUser(id: userID, appID: appID, properties: creation.properties, now: now, in: connection)
                } else {
                    try updateProperties(userID: userID, appID: appID, tenantID: tenantID, creation.properties, now: now, in: connection)
                }
                try addAliases(creation.identity, userID: userID, appID: appID, in: connection)
                guard let user = try find(id: userID, appID: appID, in: connection) else {
                    throw InvariantViolation("a user vanished in its own transaction")
                }
                return (user, created)
            }
        }
    }

    /// A unique violation that slipped past the checks (a concurrent request took the alias)
    /// is the same conflict the checks report.
    static func conflictsAs409<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError where error.isUniqueViolation {
            throw APIError(status: 409, "an alias in identity already belongs to another user")
        }
    }
}
