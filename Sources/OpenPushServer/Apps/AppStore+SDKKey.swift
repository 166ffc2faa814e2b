import OpenPushDelivery
package import Postgres

extension AppStore {
    /// Replaces the app's SDK key; the old one stops working at once. Returns the new value
    /// (shown once), or `nil` when there is no such app. Audited in the same transaction.
    package static func rotateSDKKey(_ id: String, now: Double, audit: AuditStamp = .commandLine,
                                    in database: PostgresPool) async throws -> String? {
        let key = KeyMaterial.issue(prefix: "sdk")
        return try await database.transaction { connection in
            let rows = try connection.query("""
                UPDATE apps SET sdk_key_digest = \(key.digest), updated_at = to_timestamp(\(now)) WHERE id = \(id)
                """)
            guard rows.affectedRows == 1 else { return nil }
            try AuditLogStore.record(.sdkKeyRotated, target: id, appID: id, by: audit, now: now, in: connection)
            return key.value
        }
    }
}
