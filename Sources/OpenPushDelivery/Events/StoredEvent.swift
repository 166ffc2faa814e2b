package import OpenPushCore
package import Postgres

/// One event as webhooks and the feed send it: `{"id", "type", "created_at", "app_id", "data"}`.
/// Both read rows of `events` through `page` and expand them with `expand`, so an event looks
/// the same either way. A row is one event, or a job's delivery events (`DeliveryEventBatch`,
/// `batch_size` set), which expands into its members in order.
package struct StoredEvent: Sendable, Equatable {
    package var seq: Int64
    /// The writing transaction's id (`xid8`): with `seq` and `index`, the event's place in reading order.
    package var xid: Int64
    /// The member's place in its row as its position has it: `EventPosition.wholeRow` for a
    /// single-event row and for the last member of a compact row (nothing of the row follows it).
    package var index: Int64
    package var id: String
    package var type: String
    package var appID: String
    /// Unix seconds.
    package var createdAt: Double
    /// A member of a compact row is its row's batch (shared by the row's members) and its place
    /// in it: its `data` is built only when asked, and a webhook body is written from the batch.
    private var member: (batch: DeliveryEventBatch, index: Int)?
    private var ownData: JSONObject

    package var data: JSONObject {
        get { member.map { $0.batch.eventData(at: $0.index) } ?? ownData }
        set {
            ownData = newValue
            member = nil
        }
    }

    package init(seq: Int64, xid: Int64, index: Int64 = EventPosition.wholeRow, id: String, type: String, appID: String,
                createdAt: Double, data: JSONObject) {
        self.seq = seq
        self.xid = xid
        self.index = index
        self.id = id
        self.type = type
        self.appID = appID
        self.createdAt = createdAt
        self.ownData = data
    }

    /// Member `index` of a compact row of `batch`.
    init(seq: Int64, xid: Int64, index: Int64, id: String, type: String, appID: String, createdAt: Double,
         member: Int, of batch: DeliveryEventBatch) {
        self.init(seq: seq, xid: xid, index: index, id: id, type: type, appID: appID, createdAt: createdAt, data: [:])
        self.member = (batch, member)
    }

    package static func == (lhs: StoredEvent, rhs: StoredEvent) -> Bool {
        lhs.seq == rhs.seq && lhs.xid == rhs.xid && lhs.index == rhs.index && lhs.id == rhs.id && lhs.type == rhs.type
            && lhs.appID == rhs.appID && lhs.createdAt == rhs.createdAt && lhs.data == rhs.data
    }

    /// `{"events": [...]}` of `events` as a webhook sends it: the bytes of
    /// `JSONValue.object(["events": .array(events.map(\.json))]).serializedBytes`, written from each
    /// compact row's arrays without a JSON value per event (`WebhookBody`).
    package static func webhookBody(_ events: some Collection<StoredEvent>) -> [UInt8] {
        var body = WebhookBody(reservingCapacity: 256 + events.count * 300)
        var stamp: (seconds: Double, text: String)? = nil
        for event in events {
            // A row's members share their created_at: formatted once.
            if stamp?.seconds != event.createdAt { stamp = (event.createdAt, Timestamp.iso8601(event.createdAt)) }
            let createdAt = stamp!.text
            if let member = event.member {
                body.append(id: event.id, type: event.type, createdAt: createdAt, appID: event.appID,
                            member: member.index, of: member.batch)
            } else {
                body.append(id: event.id, type: event.type, createdAt: createdAt, appID: event.appID, data: event.ownData)
            }
        }
        return body.finish()
    }

    /// The select list `expand` reads (from `events`).
    package static let columns: PostgresQuery = """
        seq, xid::text::int8 AS xid, id, type, app_id, extract(epoch FROM created_at)::float8 AS created_at,
        data::text AS data, batch_size
        """

    /// Only events whose transaction ended before every one still running that could still
    /// write an event. Read in `order`, a cursor past them never skips an event that commits
    /// later: its xid is at or above this bound.
    ///
    /// The bound is the snapshot's xmin, leaving out the transactions that PostgreSQL shows
    /// running in another database of the cluster (they can never write this database's
    /// events); without that, any transaction anywhere in the cluster held back every app's
    /// events. A running transaction of this database still holds them back, whether it writes
    /// events or not: one that has written none yet may write one, under its old xid, before it
    /// commits (see docs/api/events.md, "The feed"). A running xid PostgreSQL does not attribute to another
    /// database (a prepared transaction, a session whose details are hidden from this role)
    /// counts as this database's. Evaluated once per statement (an uncorrelated subquery).
    package static let visible: PostgresQuery = """
        xid < (SELECT coalesce(min(r.x), pg_snapshot_xmax(pg_current_snapshot()))
               FROM pg_snapshot_xip(pg_current_snapshot()) AS r(x)
               WHERE (r.x::text::numeric % 4294967296)::text NOT IN (
                   SELECT a.backend_xid::text FROM pg_stat_activity AS a
                   WHERE a.backend_xid IS NOT NULL AND a.datname <> current_database()))
        """

    /// The reading order of rows: the writing transaction, then `seq`; a row's members follow
    /// their index (`EventPosition`).
    package static let order: PostgresQuery = "xid, seq"

    /// Rows of alias `e` holding an event strictly after `position`: a later row, or the
    /// position's own row when members follow its index. The first pair lets the
    /// `(app_id, xid, seq)` index find where to start.
    package static func after(_ position: EventPosition, alias e: String = "events") -> PostgresQuery {
        let xid: PostgresQuery = "\(String(position.xid))::xid8"
        return """
            (\(identifier: e).xid, \(identifier: e).seq) >= (\(xid), \(position.seq)::int8)
            AND (\(identifier: e).xid, \(identifier: e).seq, coalesce(\(identifier: e).batch_size, 1) - 1)
                > (\(xid), \(position.seq)::int8, \(position.index)::int8)
            """
    }

    /// The rows (with `columns`) that hold the first `limit` events after `position` among the
    /// rows of `events` that `filter` keeps, in `order`; `expand` them with the same `position`
    /// and `limit`. Only the rows needed are read out: a 1,000-event row counts for 1,000, so a
    /// page of 100 reads one such row, not a hundred.
    package static func page(where filter: PostgresQuery, after position: EventPosition, limit: Int) -> PostgresQuery {
        """
        SELECT \(columns) FROM events
        WHERE seq IN (
            SELECT seq FROM (
                SELECT seq, sum(n) OVER (ORDER BY xid, seq) - n AS before
                FROM (SELECT seq, xid,
                             CASE WHEN xid = \(String(position.xid))::xid8 AND seq = \(position.seq)::int8
                                  THEN coalesce(batch_size, 1) - 1 - \(position.index)::int8
                                  ELSE coalesce(batch_size, 1) END AS n
                      FROM events WHERE \(filter) AND \(after(position))
                      ORDER BY xid, seq LIMIT \(limit)) AS candidates) AS counted
            WHERE before < \(limit))
        ORDER BY \(order)
        """
    }

    /// The events of `rows` (read by `page`) after `position`, at most `limit`, in order.
    package static func expand(_ rows: PostgresRows, after position: EventPosition, limit: Int) throws -> [StoredEvent] {
        var events: [StoredEvent] = []
        for row in rows {
            guard events.count < limit else { break }
            let event = try StoredEvent(row: row)
            guard let size = try row.decode("batch_size", as: Int?.self) else {
                events.append(event)
                continue
            }
            guard let batch = DeliveryEventBatch(data: event.data, failed: event.type == EventType.deliveryFailed.rawValue,
                                                 derivingAPNSID: { APNSIdentifier.derive(messageID: $0, subscriptionID: $1, tokenKind: $2) }),
                  batch.count == size
            else { throw MalformedEventRow(seq: event.seq) }
            let first = event.xid == position.xid && event.seq == position.seq ? Int(position.index) + 1 : 0
            var index = first
            while index < size, events.count < limit {
                events.append(StoredEvent(seq: event.seq, xid: event.xid, index: EventPosition(xid: event.xid, seq: event.seq,
                                                                                                member: index, of: size).index,
                                          id: DeliveryEventBatch.eventID(rowID: event.id, index: index), type: event.type,
                                          appID: event.appID, createdAt: event.createdAt, member: index, of: batch))
                index += 1
            }
        }
        return events
    }

    /// A compact row whose `data` does not hold `batch_size` members: never written by OpenPush.
    struct MalformedEventRow: Error, CustomStringConvertible {
        var seq: Int64
        var description: String { "events row \(seq): batch_size does not match its data" }
    }

    /// The newest position of the app's events (`.start` when it has none): where a new or
    /// re-enabled endpoint starts, past the whole of its row. As a SQL pair `(xid8, bigint)`.
    package static func newestPosition(appID: String) -> (xid: PostgresQuery, seq: PostgresQuery) {
        ("""
         COALESCE((SELECT xid FROM events WHERE app_id = \(appID) ORDER BY xid DESC, seq DESC LIMIT 1), '0'::xid8)
         """, """
         COALESCE((SELECT seq FROM events WHERE app_id = \(appID) ORDER BY xid DESC, seq DESC LIMIT 1), 0)
         """)
    }

    package var position: EventPosition { EventPosition(xid: xid, seq: seq, index: index) }

    /// The row as it is stored (for a compact row, `data` is the batch's).
    init(row: PostgresRow) throws {
        seq = try row.decode("seq")
        xid = try row.decode("xid")
        index = EventPosition.wholeRow
        id = try row.decode("id")
        type = try row.decode("type")
        appID = try row.decode("app_id")
        createdAt = try row.decode("created_at")
        ownData = try JSONValue.parse(try row.decode("data", as: String.self)).objectValue ?? [:]
    }

    package var json: JSONValue {
        ["id": .string(id), "type": .string(type), "created_at": .string(Timestamp.iso8601(createdAt)),
         "app_id": .string(appID), "data": .object(data)]
    }
}
