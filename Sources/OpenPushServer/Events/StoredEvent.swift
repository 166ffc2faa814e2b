public import OpenPushCore
public import Postgres

/// One row of `events` as webhooks and the feed send it: `{"id", "type", "created_at", "app_id",
/// "data"}`. Both read it through `columns` and `json`, so an event looks the same either way.
public struct StoredEvent: Sendable, Equatable {
    public var seq: Int64
    /// The writing transaction's id (`xid8`): with `seq`, the event's place in reading order.
    public var xid: Int64
    public var id: String
    public var type: String
    public var appID: String
    /// Unix seconds.
    public var createdAt: Double
    public var data: JSONObject

    /// The select list `init(row:)` reads (from `events`).
    public static let columns: PostgresQuery = """
        seq, xid::text::int8 AS xid, id, type, app_id, extract(epoch FROM created_at)::float8 AS created_at,
        data::text AS data
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
    /// commits (see README, "The feed"). A running xid PostgreSQL does not attribute to another
    /// database (a prepared transaction, a session whose details are hidden from this role)
    /// counts as this database's. Evaluated once per statement (an uncorrelated subquery).
    public static let visible: PostgresQuery = """
        xid < (SELECT coalesce(min(r.x), pg_snapshot_xmax(pg_current_snapshot()))
               FROM pg_snapshot_xip(pg_current_snapshot()) AS r(x)
               WHERE (r.x::text::numeric % 4294967296)::text NOT IN (
                   SELECT a.backend_xid::text FROM pg_stat_activity AS a
                   WHERE a.backend_xid IS NOT NULL AND a.datname <> current_database()))
        """

    /// The reading order: the writing transaction, then `seq` (`EventPosition`).
    public static let order: PostgresQuery = "xid, seq"

    /// Events of alias `e` strictly after `position`.
    public static func after(_ position: EventPosition, alias e: String = "events") -> PostgresQuery {
        "(\(identifier: e).xid, \(identifier: e).seq) > (\(String(position.xid))::xid8, \(position.seq))"
    }

    /// The newest position of the app's events (`.start` when it has none): where a new or
    /// re-enabled endpoint starts. As a SQL pair `(xid8, bigint)`.
    public static func newestPosition(appID: String) -> (xid: PostgresQuery, seq: PostgresQuery) {
        ("""
         COALESCE((SELECT xid FROM events WHERE app_id = \(appID) ORDER BY xid DESC, seq DESC LIMIT 1), '0'::xid8)
         """, """
         COALESCE((SELECT seq FROM events WHERE app_id = \(appID) ORDER BY xid DESC, seq DESC LIMIT 1), 0)
         """)
    }

    public var position: EventPosition { EventPosition(xid: xid, seq: seq) }

    public init(row: PostgresRow) throws {
        seq = try row.decode("seq")
        xid = try row.decode("xid")
        id = try row.decode("id")
        type = try row.decode("type")
        appID = try row.decode("app_id")
        createdAt = try row.decode("created_at")
        data = try JSONValue.parse(try row.decode("data", as: String.self)).objectValue ?? [:]
    }

    public var json: JSONValue {
        ["id": .string(id), "type": .string(type), "created_at": .string(Timestamp.iso8601(createdAt)),
         "app_id": .string(appID), "data": .object(data)]
    }
}
