package import OpenPushCore
package import Postgres

/// One event to append: its type, app and data (the `data` object of the event as sent).
package struct OutboundEvent: Sendable, Equatable {
    package var type: EventType
    package var appID: String
    package var data: JSONObject
    /// Only this endpoint gets it (a `ping`); nil: every endpoint of the app that subscribes.
    package var webhookID: String?
    /// A row of this many events (`DeliveryEventBatch`, its `data`); nil: one event.
    package var batchSize: Int?

    package init(type: EventType, appID: String, data: JSONObject, webhookID: String? = nil) {
        self.type = type
        self.appID = appID
        self.data = data
        self.webhookID = webhookID
    }

    /// A job's delivery events of `type` as one row; nil when `batch` is empty.
    package init?(type: EventType, appID: String, batch: DeliveryEventBatch) {
        guard !batch.isEmpty else { return nil }
        self.init(type: type, appID: appID, data: batch.data)
        batchSize = batch.count
    }
}

/// The event outbox: facts are appended in the transaction that makes them true. Webhook
/// dispatch and the feed read it; nothing here sends.
package enum EventOutbox {
    /// How long the feed keeps events (and so how far back a cursor may start).
    package static let retentionDays = 7
    /// NOTIFYed (at commit) by every append: the webhook dispatcher listens.
    package static let channel = "openpush_events"

    /// Appends `events` (a compact row counts as its `batchSize` events) in one statement, in order (their `seq` follows the array), and NOTIFYs
    /// `channel` in the same statement (delivered when the transaction commits). Call inside the
    /// transaction that records the facts they report.
    package static func append(_ events: [OutboundEvent], in connection: PostgresConnection) throws {
        // Each value its own bind: a job's event data (a thousand ids) goes as it is, not
        // escaped into an array literal for PostgreSQL to parse back. Six binds a row, so a
        // statement takes a thousand rows (PostgreSQL allows 65,535 binds).
        for start in stride(from: 0, to: events.count, by: rowsPerStatement) {
            let chunk = events[start..<min(start + rowsPerStatement, events.count)]
            let rows: [PostgresQuery] = zip(start..., chunk).map { position, event in
                """
                (\(event.appID)::text, \(event.type.rawValue)::text, \(JSONValue.object(event.data).serialized)::jsonb,
                 \(event.webhookID)::text, \(event.batchSize.map(Int64.init))::int4, \(Int64(position))::int8)
                """
            }
            let append: PostgresQuery = """
                WITH appended AS (
                INSERT INTO events (id, app_id, type, data, webhook_id, batch_size)
                SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), e.app_id, e.type, e.data, e.webhook_id, e.batch_size
                FROM (VALUES \(rows.joined(separator: ", "))) AS e(app_id, type, data, webhook_id, batch_size, ord)
                ORDER BY e.ord
                RETURNING 1)
                SELECT pg_notify(\(channel), '') FROM (SELECT 1 FROM appended LIMIT 1) AS any_event
                """
            // The text differs with the row count: the few counts a job's completion appends are
            // prepared (planning this statement cost more than running it), longer appends are not,
            // so a session keeps a handful of these.
            try connection.query(chunk.count <= preparedRowCounts ? append.prepared : append)
        }
    }

    /// Appends of up to this many rows run as prepared statements (`append`).
    static let preparedRowCounts = 4

    /// Rows of one appending statement (`append`).
    static let rowsPerStatement = 1000
}
