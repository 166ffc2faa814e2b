import Postgres

/// Attributes taps on ordinary notifications to the device's delivery record.
enum OpenedStore {
    enum Outcome: Equatable {
        case counted
        case unknownMessage
        /// The message exists but no record of it reaching this device (not sent, or not yet).
        case notDelivered
    }

    /// Counts one tap on the message and stamps this device's record with its first tap, so a
    /// device counts once in `converted` however often it taps; `clicks` counts every tap.
    static func record(appID: String, messageID: String, subscriptionID: String, now: Double,
                       in connection: PostgresConnection) throws -> Outcome {
        let message = try connection.query("""
            SELECT id FROM messages WHERE id = \(messageID) AND app_id = \(appID) AND kind = 'notification'
            """)
        guard !message.isEmpty else { return .unknownMessage }
        // Record first, then message: the order the Live Activity click takes its locks in.
        // The record index lists a message's recipients by id; the first record of this device
        // is the one that carries its tap, so a second record could never count it twice.
        let stamped = try connection.query("""
            UPDATE deliveries SET clicked_at = COALESCE(clicked_at, to_timestamp(\(now)))
            WHERE message_id = \(messageID) AND id = (
                SELECT id FROM deliveries
                WHERE message_id = \(messageID) AND subscription_id = \(subscriptionID) AND app_id = \(appID)
                ORDER BY id LIMIT 1)
            RETURNING id
            """)
        guard !stamped.isEmpty else { return .notDelivered }
        try connection.query("UPDATE messages SET clicks = clicks + 1 WHERE id = \(messageID)")
        return .counted
    }
}
