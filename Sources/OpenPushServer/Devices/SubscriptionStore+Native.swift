import OpenPushCore
import OpenPushDelivery
import Postgres

extension SubscriptionStore {
    /// The app's live subscription with this push token, and the digest of the device key it
    /// was linked with (nil when none was issued). Tokens are stored lower-case.
    static func nativeDevice(appID: String, token: String,
                             in connection: PostgresConnection) throws -> (id: String, deviceKeyDigest: [UInt8]?)? {
        let rows = try connection.query("""
            SELECT id, device_key_digest FROM subscriptions
            WHERE app_id = \(appID) AND token = \(token.lowercased()) AND retired_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return (try row.decode("id"), try row.decode("device_key_digest"))
    }
}
