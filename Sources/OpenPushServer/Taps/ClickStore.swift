import OpenPushCore
import OpenPushDelivery
package import Postgres

/// Attributes taps on a Live Activity to the push that produced it (and counts taps for
/// `OpenedStore`, ordinary notifications).
package enum ClickStore {
    /// Counts one tap on the message and stamps the device's delivery with its first tap.
    /// With `messageID`, that message; without it, this device's most recent Live Activity
    /// push of the activity id (narrowed by `activityType` when given). False when no such
    /// push reached this device.
    package static func record(appID: String, subscriptionID: String, activityID: String, messageID: String?,
                              activityType: String?, now: Double, in connection: PostgresConnection) throws -> Bool {
        // The activity's messages, newest first (a small index: one row per message); then this
        // device's first record of each (`openpush_first_delivery`, migration 0045).
        var messages: PostgresQuery = """
            SELECT m.id, m.created_at FROM messages m
            WHERE m.app_id = \(appID) AND m.kind = 'live_activity' AND md5(m.activity_id) = md5(\(activityID))
              AND m.activity_id = \(activityID)
            """
        if let messageID { messages = messages + " AND m.id = \(messageID)" }
        if let activityType { messages = messages + " AND m.activity_type = \(activityType)" }
        let found = try connection.query("""
            SELECT m.id AS message_id, d.id, \(FirstRecord.createdAtMicros("d")) FROM (\(messages)) AS m
            CROSS JOIN LATERAL openpush_first_delivery(m.id, \(subscriptionID), \(appID)) AS d
            ORDER BY m.created_at DESC
            LIMIT 1
            """)
        guard let delivery = found.first else { return false }
        try countTap(messageID: try delivery.decode("message_id"), record: try FirstRecord(row: delivery), now: now,
                     event: (appID, subscriptionID, activityID), in: connection)
        return true
    }

    /// A device's first record of a message (lowest id, in `delivery_rows` or a batch): the
    /// one its taps are attributed to.
    struct FirstRecord: Sendable, Equatable {
        var id: Int64
        /// The record's `created_at` (its partition key, and its bucket in the stats rollup), in
        /// unix microseconds: exact, as a double of seconds is not.
        var createdAtMicros: Int64

        /// Reads `created_at_micros` of `table`'s row.
        static func createdAtMicros(_ table: String) -> PostgresQuery {
            "(extract(epoch FROM \(identifier: table).created_at) * 1000000)::int8 AS created_at_micros"
        }

        /// The record's `created_at` as SQL.
        var createdAt: PostgresQuery { "(to_timestamp(0) + \(createdAtMicros) * interval '1 microsecond')" }

        init(row: PostgresRow) throws {
            id = try row.decode("id")
            createdAtMicros = try row.decode("created_at_micros")
        }
    }

    /// One tap on the push behind `record` of `event`'s device: every tap counts in the
    /// message's `clicks`; the first one (an insert into `delivery_clicks` that succeeds, so two
    /// taps at once cannot both be first) stamps the record and counts the device in `converted`.
    /// Appends a `click` for `event`'s app and device (`activity_id` for a Live Activity tap),
    /// `first` when the record had no tap yet.
    static func countTap(messageID: String, record: FirstRecord, now: Double,
                         event: (appID: String, subscriptionID: String, activityID: String?),
                         in connection: PostgresConnection) throws {
        let first = try !connection.query("""
            INSERT INTO delivery_clicks (message_id, subscription_id, record_id, record_created_at, clicked_at)
            VALUES (\(messageID), \(event.subscriptionID), \(record.id), \(record.createdAt), to_timestamp(\(now)))
            ON CONFLICT (message_id, subscription_id) DO NOTHING
            RETURNING 1
            """).isEmpty
        // The first tap on a record counts its device in `converted` (`DeliveryCounts`).
        try connection.query("""
            UPDATE messages SET clicks = clicks + 1, counted_converted = counted_converted + \(first ? 1 : 0)
            WHERE id = \(messageID)
            """)
        // ... and the record's app in the stats rollup (`clicked`).
        if first {
            try DeliveryCounts.addFirstTap(appID: event.appID, subscriptionID: event.subscriptionID, recordCreatedAt: record.createdAt,
                                          in: connection)
        }
        try EventOutbox.append([OutboundEvent(type: .click, appID: event.appID, data: EventData.click(
            notificationID: messageID, subscriptionID: event.subscriptionID, activityID: event.activityID, first: first))],
            in: connection)
    }
}
