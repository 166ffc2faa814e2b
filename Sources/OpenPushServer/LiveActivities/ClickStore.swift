import OpenPushCore
public import Postgres

/// Attributes taps on a Live Activity to the push that produced it (and counts taps for
/// `OpenedStore`, ordinary notifications).
public enum ClickStore {
    /// Counts one tap on the message and stamps the device's delivery with its first tap.
    /// With `messageID`, that message; without it, this device's most recent Live Activity
    /// push of the activity id (narrowed by `activityType` when given). False when no such
    /// push reached this device.
    public static func record(appID: String, subscriptionID: String, activityID: String, messageID: String?,
                              activityType: String?, now: Double, in connection: PostgresConnection) throws -> Bool {
        // The activity's messages, newest first (a small index: one row per message); then this
        // device's record of each, one descent of the record index (message, device, id).
        var messages: PostgresQuery = """
            SELECT m.id, m.created_at FROM messages m
            WHERE m.app_id = \(appID) AND m.kind = 'live_activity' AND md5(m.activity_id) = md5(\(activityID))
              AND m.activity_id = \(activityID)
            """
        if let messageID { messages = messages + " AND m.id = \(messageID)" }
        if let activityType { messages = messages + " AND m.activity_type = \(activityType)" }
        let found = try connection.query("""
            SELECT d.id, d.message_id FROM (\(messages)) AS m
            JOIN deliveries d ON d.message_id = m.id AND d.subscription_id = \(subscriptionID) AND d.app_id = \(appID)
            ORDER BY m.created_at DESC, d.id DESC
            LIMIT 1
            FOR UPDATE OF d
            """)
        guard let delivery = found.first else { return false }
        try countTap(messageID: try delivery.decode("message_id"), deliveryID: try delivery.decode("id"), now: now,
                     event: (appID, subscriptionID, activityID), in: connection)
        return true
    }

    /// One tap on the push behind record `deliveryID` of `event`'s device (locked by the caller;
    /// the device narrows the record index to its entries): every tap counts in
    /// the message's `clicks`, the first one stamps the record (`converted` counts a device once).
    /// Appends a `click` for `event`'s app and device (`activity_id` for a Live Activity tap),
    /// `first` when the record had no tap yet.
    static func countTap(messageID: String, deliveryID: Int64, now: Double,
                         event: (appID: String, subscriptionID: String, activityID: String?),
                         in connection: PostgresConnection) throws {
        // The record is locked by the caller, so reading its first tap and stamping it cannot race.
        let first = try connection.query("""
            SELECT clicked_at IS NULL AS first FROM deliveries
            WHERE message_id = \(messageID) AND subscription_id = \(event.subscriptionID) AND id = \(deliveryID)
            """).first?.decode("first", as: Bool.self) ?? false
        // The first tap on a record counts its device in `converted` (`DeliveryCounts`).
        try connection.query("""
            UPDATE messages SET clicks = clicks + 1, counted_converted = counted_converted + \(first ? 1 : 0)
            WHERE id = \(messageID)
            """)
        try connection.query("""
            UPDATE deliveries SET clicked_at = COALESCE(clicked_at, to_timestamp(\(now)))
            WHERE message_id = \(messageID) AND subscription_id = \(event.subscriptionID) AND id = \(deliveryID)
            """)
        // ... and the record's app in the stats rollup (`clicked`).
        if first {
            try DeliveryCounts.addFirstTap(messageID: messageID, subscriptionID: event.subscriptionID, deliveryID: deliveryID,
                                           in: connection)
        }
        try EventOutbox.append([OutboundEvent(type: .click, appID: event.appID, data: EventData.click(
            notificationID: messageID, subscriptionID: event.subscriptionID, activityID: event.activityID, first: first))],
            in: connection)
    }
}
