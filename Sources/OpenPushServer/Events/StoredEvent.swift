public import OpenPushCore
public import Postgres

/// One row of `events` as webhooks and the feed send it: `{"id", "type", "created_at", "app_id",
/// "data"}`. Both read it through `columns` and `json`, so an event looks the same either way.
public struct StoredEvent: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    public var type: String
    public var appID: String
    /// Unix seconds.
    public var createdAt: Double
    public var data: JSONObject

    /// The select list `init(row:)` reads (from `events`).
    public static let columns: PostgresQuery = """
        seq, id, type, app_id, extract(epoch FROM created_at)::float8 AS created_at, data::text AS data
        """

    /// Only events whose transaction ended before every one still running: a cursor past them
    /// never skips an event that commits later with a lower `seq`.
    public static let visible: PostgresQuery = "xid < pg_snapshot_xmin(pg_current_snapshot())"

    public init(row: PostgresRow) throws {
        seq = try row.decode("seq")
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
