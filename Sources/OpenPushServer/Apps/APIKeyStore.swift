import OpenPushCore
import OpenPushDelivery
package import Postgres

/// The REST keys an app's owner manages with the organization key. Keys of shared-demo
/// tenants (`tenant_id` set) belong to the tenant routes and are invisible here.
///
/// Every operation locks the app's row first, so concurrent deletes cannot together remove
/// the last key, and a missing app is told apart from a missing key. Every change writes its
/// audit entry in its own transaction.
package enum APIKeyStore {
    /// `lifetime` in seconds (already checked against `KeyLifetime.allowedSeconds`); nil never expires.
    package static func create(appID: String, name: String, lifetime: Int64? = nil, now: Double,
                              audit: AuditStamp = .commandLine, in database: PostgresPool) async throws -> IssuedAPIKey {
        let id = Identifier.make(prefix: "key", now: now, random: KeyMaterial.identifierEntropy())
        let issued = KeyMaterial.issue(prefix: "rest")
        let expiresAt = lifetime.map { now + Double($0) }
        let key = try await database.transaction { connection in
            try lockApp(appID, in: connection)
            try connection.query("""
                INSERT INTO api_keys (id, app_id, name, digest, created_at, expires_at)
                VALUES (\(id), \(appID), \(name), \(issued.digest), to_timestamp(\(now)), to_timestamp(\(expiresAt)))
                """)
            try AuditLogStore.record(.apiKeyCreated, target: id, appID: appID, by: audit, now: now, in: connection)
            return try find(id, appID: appID, in: connection)
        }
        return IssuedAPIKey(key: key, token: issued.value)
    }

    /// Oldest first.
    package static func list(appID: String, in database: PostgresPool) async throws -> [APIKeyRecord] {
        try await database.withConnection { connection in
            guard try AppStore.find(appID, in: connection) != nil else { throw APIKeyRefusal.unknownApp(appID) }
            let rows = try connection.query(APIKeyRecord.columns + """
                 WHERE app_id = \(appID) AND tenant_id IS NULL ORDER BY api_keys.created_at, id
                """)
            return try rows.map(APIKeyRecord.init(row:))
        }
    }

    /// Renames the key (`name` nil keeps it); its value is untouched.
    package static func update(appID: String, keyID: String, name: String?, now: Double, audit: AuditStamp = .commandLine,
                              in database: PostgresPool) async throws -> APIKeyRecord {
        try await database.transaction { connection in
            try lockApp(appID, in: connection)
            let updated = try connection.query("""
                UPDATE api_keys SET name = COALESCE(\(name), name), updated_at = to_timestamp(\(now))
                WHERE id = \(keyID) AND app_id = \(appID) AND tenant_id IS NULL
                """)
            guard updated.affectedRows == 1 else { throw APIKeyRefusal.unknownKey(keyID) }
            let changed: [JSONValue] = name == nil ? [] : ["name"]
            try AuditLogStore.record(.apiKeyUpdated, target: keyID, appID: appID, metadata: ["fields": .array(changed)],
                                     by: audit, now: now, in: connection)
            return try find(keyID, appID: appID, in: connection)
        }
    }

    /// A new value for the key, which keeps its id; the old value stops working when this commits.
    package static func rotate(appID: String, keyID: String, now: Double, audit: AuditStamp = .commandLine,
                              in database: PostgresPool) async throws -> IssuedAPIKey {
        let issued = KeyMaterial.issue(prefix: "rest")
        let key = try await database.transaction { connection in
            try lockApp(appID, in: connection)
            let updated = try connection.query("""
                UPDATE api_keys SET digest = \(issued.digest), rotated_at = to_timestamp(\(now)), updated_at = to_timestamp(\(now))
                WHERE id = \(keyID) AND app_id = \(appID) AND tenant_id IS NULL
                """)
            guard updated.affectedRows == 1 else { throw APIKeyRefusal.unknownKey(keyID) }
            try AuditLogStore.record(.apiKeyRotated, target: keyID, appID: appID, by: audit, now: now, in: connection)
            return try find(keyID, appID: appID, in: connection)
        }
        return IssuedAPIKey(key: key, token: issued.value)
    }

    /// Refuses to delete the app's last key: an app must always be reachable with one.
    package static func delete(appID: String, keyID: String, now: Double, audit: AuditStamp = .commandLine,
                              in database: PostgresPool) async throws {
        try await database.transaction { connection in
            try lockApp(appID, in: connection)
            let keys = try connection.query("SELECT id FROM api_keys WHERE app_id = \(appID) AND tenant_id IS NULL")
            let ids = try keys.map { try $0.decode("id", as: String.self) }
            guard ids.contains(keyID) else { throw APIKeyRefusal.unknownKey(keyID) }
            guard ids.count > 1 else { throw APIKeyRefusal.lastKey(keyID) }
            try connection.query("DELETE FROM api_keys WHERE id = \(keyID) AND app_id = \(appID)")
            try AuditLogStore.record(.apiKeyDeleted, target: keyID, appID: appID, by: audit, now: now, in: connection)
        }
    }

    private static func lockApp(_ appID: String, in connection: PostgresConnection) throws {
        guard try !connection.query("SELECT id FROM apps WHERE id = \(appID) FOR UPDATE").isEmpty else {
            throw APIKeyRefusal.unknownApp(appID)
        }
    }

    private static func find(_ keyID: String, appID: String, in connection: PostgresConnection) throws -> APIKeyRecord {
        guard let row = try connection.query(APIKeyRecord.columns + " WHERE id = \(keyID) AND app_id = \(appID)").first else {
            throw InvariantViolation("api key vanished in its own transaction")
        }
        return try APIKeyRecord(row: row)
    }
}
