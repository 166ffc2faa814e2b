import OpenPushCore
import OpenPushDelivery
import Postgres

/// `device_push_tokens`: a device's extra tokens, one per kind. Rows are reached through the
/// device's subscription id, which the caller found within the app.
extension SubscriptionStore {
    /// Inserts or replaces the device's token of this kind; true when it is new. `updated_at`
    /// is when it was last registered, for APNs' 410 timestamp rule.
    static func registerExtraToken(subscriptionID: String, appID: String, kind: ExtraTokenKind, token: String, now: Double,
                                   in connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            INSERT INTO device_push_tokens AS t (subscription_id, app_id, kind, token, created_at, updated_at)
            VALUES (\(subscriptionID), \(appID), \(kind.rawValue), \(token), to_timestamp(\(now)), to_timestamp(\(now)))
            ON CONFLICT (subscription_id, kind) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at
            RETURNING (t.xmax = 0) AS created
            """)[0].decode("created")
    }

    /// False when the device had no token of this kind.
    static func removeExtraToken(subscriptionID: String, appID: String, kind: ExtraTokenKind,
                                 in connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            DELETE FROM device_push_tokens
            WHERE subscription_id = \(subscriptionID) AND app_id = \(appID) AND kind = \(kind.rawValue)
            """).affectedRows > 0
    }

    /// The kinds the device holds, sorted.
    static func extraTokenKinds(subscriptionID: String, in connection: PostgresConnection) throws -> [ExtraTokenKind] {
        try connection.query("SELECT kind FROM device_push_tokens WHERE subscription_id = \(subscriptionID)").map { row in
            let stored: String = try row.decode("kind")
            guard let kind = ExtraTokenKind(rawValue: stored) else {
                throw InvariantViolation("a device's extra token has kind '\(stored)'")
            }
            return kind
        }.sorted { $0.rawValue < $1.rawValue }
    }
}
