import Crypto
import OpenPushCore
import OpenPushDelivery
package import Postgres

/// Tenants of shared demo apps, managed with the organization key. Every query names the app.
package enum TenantStore {
    static let keyName = "tenant"
    /// A fresh code collides with one of the app's codes about once in 10^12 draws; a few tries
    /// make a failure a sign of a broken random source, not bad luck.
    static let linkCodeAttempts = 5

    /// The tenant, its REST key (an `api_keys` row carrying `tenant_id`) and its link code, in
    /// one transaction with its audit entry. Only a shared demo app has tenants.
    package static func create(appID: String, name: String?, now: Double, audit: AuditStamp = .commandLine,
                              in database: PostgresPool) async throws -> CreatedTenant {
        let id = Identifier.make(prefix: "ten", now: now, random: KeyMaterial.identifierEntropy())
        let keyID = Identifier.make(prefix: "key", now: now, random: KeyMaterial.identifierEntropy())
        let restKey = KeyMaterial.issue(prefix: "rest")
        let tenant = try await database.transaction { connection in
            // FOR SHARE: the app cannot be deleted or turned into an ordinary app under us.
            guard let app = try connection.query("SELECT shared_demo FROM apps WHERE id = \(appID) FOR SHARE").first else {
                throw Authentication.unknownApp(appID)
            }
            guard try app.decode("shared_demo", as: Bool.self) else {
                throw APIError.badRequest("app '\(appID)' is not a shared demo app")
            }
            try insert(id: id, appID: appID, name: name, now: now, in: connection)
            try connection.query("""
                INSERT INTO api_keys (id, app_id, tenant_id, name, digest, created_at)
                VALUES (\(keyID), \(appID), \(id), \(keyName), \(restKey.digest), to_timestamp(\(now)))
                """)
            try AuditLogStore.record(.tenantCreated, target: id, appID: appID, by: audit, now: now, in: connection)
            guard let tenant = try find(id, appID: appID, in: connection) else {
                throw InvariantViolation("tenant vanished in its own transaction")
            }
            return tenant
        }
        return CreatedTenant(tenant: tenant, restKey: restKey.value)
    }

    /// The app's tenants, oldest first; `404` for an unknown app.
    package static func list(appID: String, in database: PostgresPool) async throws -> [TenantRecord] {
        try await database.withConnection { connection in
            guard try AppStore.find(appID, in: connection) != nil else { throw Authentication.unknownApp(appID) }
            return try connection.query(TenantRecord.columns + " WHERE t.app_id = \(appID) ORDER BY t.created_at, t.id")
                .map(TenantRecord.init(row:))
        }
    }

    /// Deletes a tenant and its REST key. Its devices stay registered but are unlinked: no
    /// tenant, no device key (on a shared app they must link again before their `/v1` calls
    /// work). Returns how many devices were unlinked.
    package static func delete(_ tenantID: String, appID: String, now: Double, audit: AuditStamp = .commandLine,
                              in database: PostgresPool) async throws -> Int {
        try await database.transaction { connection in
            guard try AppStore.find(appID, in: connection) != nil else { throw Authentication.unknownApp(appID) }
            let unlinked = try connection.query("""
                UPDATE subscriptions SET tenant_id = NULL, device_key_digest = NULL, updated_at = to_timestamp(\(now))
                WHERE app_id = \(appID) AND tenant_id = \(tenantID)
                """)
            let deleted = try connection.query("DELETE FROM tenants WHERE id = \(tenantID) AND app_id = \(appID)")
            guard deleted.affectedRows == 1 else { throw APIError.notFound("unknown tenant '\(tenantID)'") }
            try AuditLogStore.record(.tenantDeleted, target: tenantID, appID: appID, by: audit, now: now, in: connection)
            return unlinked.affectedRows
        }
    }

    static func find(_ id: String, appID: String, in connection: PostgresConnection) throws -> TenantRecord? {
        try connection.query(TenantRecord.columns + " WHERE t.app_id = \(appID) AND t.id = \(id)")
            .first.map(TenantRecord.init(row:))
    }

    /// Inserts the tenant under a fresh random link code, drawing again on the rare collision.
    private static func insert(id: String, appID: String, name: String?, now: Double, in connection: PostgresConnection) throws {
        for _ in 0..<linkCodeAttempts {
            let code = LinkCode.make(random: SecureRandom.bytes(LinkCode.length))
            let inserted = try connection.query("""
                INSERT INTO tenants (id, app_id, name, link_code, created_at)
                VALUES (\(id), \(appID), \(name), \(code), to_timestamp(\(now)))
                ON CONFLICT (app_id, link_code) DO NOTHING
                """)
            if inserted.affectedRows == 1 { return }
        }
        throw InvariantViolation("no free link code after \(linkCodeAttempts) draws")
    }
}
