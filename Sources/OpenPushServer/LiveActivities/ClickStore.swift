public import Postgres

/// Attributes taps on a Live Activity to the push that produced it.
public enum ClickStore {
    /// Counts one tap on the message and stamps the device's delivery with its first tap.
    /// With `messageID`, that message; without it, this device's most recent Live Activity
    /// push of the activity id (narrowed by `activityType` when given). False when no such
    /// push reached this device.
    public static func record(appID: String, subscriptionID: String, activityID: String, messageID: String?,
                              activityType: String?, now: Double, in connection: PostgresConnection) throws -> Bool {
        var conditions: PostgresQuery = """
            d.app_id = \(appID) AND d.subscription_id = \(subscriptionID)
            AND m.kind = 'live_activity' AND m.activity_id = \(activityID)
            """
        if let messageID { conditions = conditions + " AND m.id = \(messageID)" }
        if let activityType { conditions = conditions + " AND m.activity_type = \(activityType)" }
        let found = try connection.query("""
            SELECT d.id, d.message_id FROM deliveries d JOIN messages m ON m.id = d.message_id
            WHERE \(conditions)
            ORDER BY d.created_at DESC, d.id DESC
            LIMIT 1
            FOR UPDATE OF d
            """)
        guard let delivery = found.first else { return false }
        let deliveryID: Int64 = try delivery.decode("id")
        let message: String = try delivery.decode("message_id")
        try connection.query("UPDATE messages SET clicks = clicks + 1 WHERE id = \(message)")
        try connection.query("""
            UPDATE deliveries SET clicked_at = COALESCE(clicked_at, to_timestamp(\(now))) WHERE id = \(deliveryID)
            """)
        return true
    }
}
