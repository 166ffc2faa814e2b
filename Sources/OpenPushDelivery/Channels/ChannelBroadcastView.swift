import OpenPushCore
import Postgres

/// What `GET /notifications/{id}` adds for a channel broadcast: `audience: "broadcast"`, the
/// channel (`channel`, `chn_…`, and `channel_id`, APNs' id), and APNs' answer. Its one
/// recipient, the channel, makes the message's figures. Other messages get `audience: null`.
enum ChannelBroadcastView {
    static func apply(to view: inout JSONObject, messageID: String, in connection: PostgresConnection) throws {
        guard let row = try connection.query("""
            SELECT \(columns) FROM live_activity_broadcasts WHERE message_id = \(messageID)
            """).first else { return }
        try apply(row, to: &view, messageID: messageID)
    }

    /// The broadcast rows of those of `messageIDs` that are broadcasts, by message id, in one
    /// prepared statement (for `apply(_:to:messageID:)`).
    static func rows(messageIDs: [String], in connection: PostgresConnection) throws -> [String: PostgresRow] {
        guard !messageIDs.isEmpty else { return [:] }
        var found: [String: PostgresRow] = [:]
        for row in try connection.query(prepared: """
            SELECT message_id, \(columns) FROM live_activity_broadcasts WHERE message_id = ANY(\(messageIDs)::text[])
            """) {
            found[try row.decode("message_id")] = row
        }
        return found
    }

    private static let columns: PostgresQuery = """
        channel, channel_id, environment, state, attempts, apns_status, apns_reason, apns_request_id, apns_unique_id,
        extract(epoch FROM finished_at)::float8 AS finished_at
        """

    /// Shows the broadcast's outcome (its row of `live_activity_broadcasts`) in the view.
    static func apply(_ row: PostgresRow, to view: inout JSONObject, messageID: String) throws {
        let stored: String = try row.decode("state")
        guard let state = BroadcastState(rawValue: stored) else {
            throw InvariantViolation("broadcast \(messageID) has an unknown state '\(stored)'")
        }
        let finishedAt: Double? = try row.decode("finished_at")
        func text(_ column: String) throws -> JSONValue { try row.decode(column, as: String?.self).map(JSONValue.string) ?? .null }
        view["audience"] = "broadcast"
        view["channel"] = try text("channel")
        view["channel_id"] = try text("channel_id")
        view["environment"] = try text("environment")
        view["apns"] = [
            "state": .string(state.rawValue),
            "attempts": .int(Int64(try row.decode("attempts", as: Int.self))),
            "status": try row.decode("apns_status", as: Int?.self).map { .int(Int64($0)) } ?? .null,
            "reason": try text("apns_reason"),
            "request_id": try text("apns_request_id"),
            "unique_id": try text("apns_unique_id"),
            "finished_at": finishedAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
        ]
        let accepted: Int64 = state == .accepted ? 1 : 0
        let errored: Int64 = state == .error ? 1 : 0
        view["successful"] = .int(accepted)
        view["failed"] = 0
        view["errored"] = .int(errored)
        view["remaining"] = .int(state == .queued ? 1 : 0)
        view["cancelled"] = .int(state == .cancelled ? 1 : 0)
        view["platform_delivery_stats"] = ["ios": [
            "successful": .int(accepted), "failed": 0, "errored": .int(errored), "converted": view["converted"] ?? 0,
        ]]
        if state != .queued, let finishedAt { view["completed_at"] = .string(Timestamp.iso8601(finishedAt)) }
    }
}
