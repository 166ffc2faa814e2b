import OpenPushCore
import OpenPushDelivery
import Postgres

extension SubscriptionStore {
    /// The app's live subscription with this push token, its platform, and the digest of the
    /// device key it was linked with (nil when none was issued).
    static func nativeDevice(appID: String, token: String, in connection: PostgresConnection)
        throws -> (id: String, platform: String, deviceKeyDigest: [UInt8]?)?
    {
        let rows = try connection.query("""
            SELECT s.id, s.platform, s.device_key_digest FROM subscriptions s
            WHERE s.app_id = \(appID) AND \(tokenNames(token)) AND s.retired_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return (try row.decode("id"), try row.decode("platform"), try row.decode("device_key_digest"))
    }

    /// A condition on `subscriptions s`: its token is the one a device sent, in the stored form
    /// of its service. Apple tokens are stored lower-cased, so any case names them; an Android
    /// token or a browser's endpoint only exactly as sent. Both candidates are one indexed `= ANY`.
    static func tokenNames(_ sent: String) -> PostgresQuery {
        let apple = DeviceToken.normalized(sent, service: .apns)
        return "(s.token = ANY(\([sent, apple])::text[]) AND (s.platform NOT IN ('android', 'web') OR s.token = \(sent)))"
    }
}
