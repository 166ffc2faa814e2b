import OpenPushDelivery
package import Postgres

extension AppStore {
    /// Replaces the app's SDK key; the old one stops working at once. Returns the new value
    /// (shown once), or `nil` when there is no such app.
    package static func rotateSDKKey(_ id: String, now: Double, in database: PostgresPool) async throws -> String? {
        let key = KeyMaterial.issue(prefix: "sdk")
        let rows = try await database.query("""
            UPDATE apps SET sdk_key_digest = \(key.digest), updated_at = to_timestamp(\(now)) WHERE id = \(id)
            """)
        return rows.affectedRows == 1 ? key.value : nil
    }
}
