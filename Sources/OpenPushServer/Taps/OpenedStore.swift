import OpenPushDelivery
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
        guard let record = try connection.query(firstRecord(messageID: messageID, subscriptionID: subscriptionID, appID: appID))
            .first else { return .notDelivered }
        try ClickStore.countTap(messageID: messageID, record: try ClickStore.FirstRecord(row: record), now: now,
                                event: (appID, subscriptionID, nil), in: connection)
        return .counted
    }

    /// The device's first record of the message: it carries the device's tap. One descent of
    /// each record index (`openpush_first_delivery`), however many devices the message reached.
    static func firstRecord(messageID: String, subscriptionID: String, appID: String) -> PostgresQuery {
        """
        SELECT r.id, \(ClickStore.FirstRecord.createdAtMicros("r"))
        FROM openpush_first_delivery(\(messageID), \(subscriptionID), \(appID)) AS r
        """
    }
}
