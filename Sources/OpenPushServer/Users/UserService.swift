import OpenPushCore
import OpenPushDelivery
import Postgres

/// The user use cases behind the REST routes. A user is found by a lookup (`404` when none);
/// a shared demo tenant's key reaches only its own users (`403`, `TenantAccess.requireOwnUser`)
/// and sees only the devices linked to it.
enum UserService {
    static let userNotFound = APIError.notFound("user not found")

    /// A user and its live devices, as the calling key may see them.
    struct Seen: Sendable {
        var user: UserRecord
        var devices: [SubscriptionRecord]

        var view: JSONValue { user.view(subscriptions: devices) }
    }

    /// Creates a user or merges into the one its aliases name (`created: false`).
    static func create(_ creation: UserCreation, principal: RESTPrincipal, now: Double,
                       in database: PostgresPool) async throws -> (seen: Seen, created: Bool) {
        let (user, created) = try await UserStore.create(creation, appID: principal.app.id, tenantID: principal.tenantID,
                                                         now: now, in: database)
        let seen = try await database.withConnection { try Self.seen(user, by: principal, in: $0) }
        return (seen, created)
    }

    /// The user a lookup names, with its devices.
    static func find(_ lookup: UserLookup, principal: RESTPrincipal, in database: PostgresPool) async throws -> Seen {
        try await database.withConnection { connection in
            try seen(try find(lookup, for: principal, in: connection), by: principal, in: connection)
        }
    }

    /// `update_user`: applies the properties and deltas to the user a lookup names, in one
    /// transaction; the user as it is after.
    static func update(_ lookup: UserLookup, _ update: UserUpdate, principal: RESTPrincipal, now: Double,
                       in database: PostgresPool) async throws -> Seen {
        try await database.transaction { connection in
            let user = try find(lookup, for: principal, in: connection)
            try UserStore.update(userID: user.id, appID: principal.app.id, tenantID: principal.tenantID, update, now: now,
                                 in: connection)
            guard let updated = try UserStore.find(id: user.id, appID: principal.app.id, in: connection) else { throw userNotFound }
            return try seen(updated, by: principal, in: connection)
        }
    }

    /// Adds aliases to the user a lookup names; the user as it is after.
    static func addAliases(_ identity: [String: String], to lookup: UserLookup, principal: RESTPrincipal, now: Double,
                           in database: PostgresPool) async throws -> UserRecord {
        let userID = try await database.withConnection { try find(lookup, for: principal, in: $0).id }
        guard let user = try await UserStore.addAliases(identity, userID: userID, appID: principal.app.id, now: now,
                                                        in: database)
        else { throw userNotFound }
        return user
    }

    /// Removes one alias of the user a lookup names: the user as it is after, or nil when it
    /// had no alias with that label.
    static func deleteAlias(label: String, of lookup: UserLookup, principal: RESTPrincipal, now: Double,
                            in database: PostgresPool) async throws -> UserRecord? {
        try await database.transaction { connection -> UserRecord? in
            let user = try find(lookup, for: principal, in: connection)
            guard try UserStore.deleteAlias(label: label, userID: user.id, now: now, in: connection) else { return nil }
            return try UserStore.find(id: user.id, appID: principal.app.id, in: connection)
        }
    }

    /// Deletes the user a lookup names and its aliases; its devices stay, unlinked.
    static func delete(_ lookup: UserLookup, principal: RESTPrincipal, now: Double, in database: PostgresPool) async throws {
        try await database.transaction { connection in
            let user = try find(lookup, for: principal, in: connection)
            try UserStore.delete(userID: user.id, appID: principal.app.id, now: now, in: connection)
        }
    }

    /// The user a lookup names (`404`); for a shared demo tenant's key, one of its own (`403`).
    static func find(_ lookup: UserLookup, for principal: RESTPrincipal,
                             in connection: PostgresConnection) throws -> UserRecord {
        let appID = principal.app.id
        guard let id = try UserStore.resolve(lookup, appID: appID, in: connection),
              let user = try UserStore.find(id: id, appID: appID, in: connection)
        else { throw userNotFound }
        try TenantAccess.requireOwnUser(user.id, appID: appID, tenantID: principal.tenantID, in: connection)
        return user
    }

    /// The user with its live devices; a tenant's key sees only the devices linked to it.
    static func seen(_ user: UserRecord, by principal: RESTPrincipal, in connection: PostgresConnection) throws -> Seen {
        var devices = try user.externalID.map { try SubscriptionStore.live(externalID: $0, appID: user.appID, in: connection) } ?? []
        if let tenantID = principal.tenantID {
            devices.removeAll { $0.tenantID != tenantID }
        }
        return Seen(user: user, devices: devices)
    }
}
