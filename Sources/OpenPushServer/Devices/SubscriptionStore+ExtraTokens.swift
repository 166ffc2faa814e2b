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

    /// A token refresh (`previous_token`) superseded `previousID` by `newID`: the device's extra
    /// tokens come from other frameworks than its APNs token and outlive the refresh, so they move
    /// to the new subscription, each kind unless it holds one already (its own is newer), and only
    /// between devices of one platform. They keep `updated_at`, for APNs' 410 timestamp rule.
    static func moveExtraTokens(from previousID: String, to newID: String, in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO device_push_tokens (subscription_id, app_id, kind, token, created_at, updated_at)
            SELECT n.id, t.app_id, t.kind, t.token, t.created_at, t.updated_at
            FROM device_push_tokens t
            JOIN subscriptions o ON o.id = t.subscription_id
            JOIN subscriptions n ON n.id = \(newID) AND n.app_id = o.app_id AND n.platform = o.platform
            WHERE t.subscription_id = \(previousID)
            ON CONFLICT (subscription_id, kind) DO NOTHING
            """)
        try connection.query("DELETE FROM device_push_tokens WHERE subscription_id = \(previousID)")
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
