package import OpenPushCore
package import Postgres

/// A message as OneSignal's "view notification" shows it, plus OpenPush's own counters.
package enum MessageView {
    /// Request fields OneSignal's view echoes back as they were sent (`null` when absent).
    static let requestEchoes = ["data", "include_aliases", "template_id", "throttle_rate_per_minute", "delayed_option",
                                "delivery_time_of_day", "privacy_text"]
    /// Echoed too, but `[]` when absent: OneSignal's schema has them as arrays, never `null`, and
    /// its clients refuse a `null` there.
    static let requestListEchoes = ["included_segments", "excluded_segments"]

    /// Reasons that mean the device can no longer be reached: OneSignal counts these as `failed`
    /// ("unsubscribed"); every other error is `errored`.
    static let unreachableReasons = DeliveryTally.unreachableReasons

    /// The message, or nil when the app has none by that id. With a `tenantID` (a shared demo
    /// tenant's key) only that tenant's messages are found: another tenant's is as missing as
    /// one that never existed, as in the list and cancel routes.
    package static func find(messageID: String, appID: String, tenantID: String? = nil,
                            in connection: PostgresConnection) throws -> JSONValue? {
        guard let message = try NotificationStore.viewRow(messageID: messageID, appID: appID, tenantID: tenantID,
                                                          in: connection) else { return nil }
        var view = try render(message)
        try ChannelBroadcastView.apply(to: &view, messageID: messageID, in: connection)
        return .object(view)
    }

    /// The views of several messages, by id, in two statements whatever their number (for the
    /// events of the messages a batch of jobs completes); a message that does not exist has none.
    static func findAll(messageIDs: [String], in connection: PostgresConnection) throws -> [String: JSONObject] {
        let rows = try NotificationStore.viewRows(messageIDs: messageIDs, in: connection)
        let broadcasts = try ChannelBroadcastView.rows(messageIDs: Array(rows.keys), in: connection)
        var views: [String: JSONObject] = [:]
        for (messageID, row) in rows {
            var view = try render(row)
            if let broadcast = broadcasts[messageID] { try ChannelBroadcastView.apply(broadcast, to: &view, messageID: messageID) }
            views[messageID] = view
        }
        return views
    }

    /// The view of a message row as `NotificationStore.viewRow` reads it.
    static func render(_ message: PostgresRow) throws -> JSONObject {
        let request = (try? JSONValue.parse(try message.decode("request", as: String.self)))?.objectValue ?? [:]
        let remaining: Int = try message.decode("remaining")
        let createdAt: Double = try message.decode("created_at")
        let lastFinished: Double? = try message.decode("last_finished")
        // A scheduled message, or one whose audience is still being expanded, has recipients to come.
        let expanding = try message.decode("expanding", as: Bool?.self) ?? false
        let complete = remaining == 0 && !expanding
        func total(_ figure: String) throws -> Int64 { try message.decode(figure, as: Int64.self) }
        var view: JSONObject = [
            "id": .string(try message.decode("id")),
            "app_id": .string(try message.decode("app_id")),
            "name": try message.decode("name", as: String?.self).map(JSONValue.string) ?? .null,
            // Not `kind`: OneSignal's view has a `kind` of its own (`null` or `"warmup"`, for email).
            "message_kind": .string(try MessageStore.kind(message).rawValue),
            "event": try message.decode("event", as: String?.self).map(JSONValue.string) ?? .null,
            "activity_type": try message.decode("activity_type", as: String?.self).map(JSONValue.string) ?? .null,
            "activity_id": try message.decode("activity_id", as: String?.self).map(JSONValue.string) ?? .null,
            "headings": request["headings"] ?? .null,
            "contents": request["contents"] ?? .null,
            "successful": .int(try total("successful")),
            "failed": .int(try total("failed")),
            "errored": .int(try total("errored")),
            "converted": .int(try total("converted")),
            "remaining": .int(Int64(remaining)),
            "queued_at": .int(Int64(createdAt)),
            "send_after": .int(Int64(try message.decode("send_after", as: Double?.self) ?? createdAt)),
            "completed_at": complete ? .int(Int64(lastFinished ?? createdAt)) : .null,
            "canceled": .bool(try message.decode("cancelled", as: Bool.self) || (try total("cancelled_records")) > 0),
            "clicks_total": .int(Int64(try message.decode("clicks", as: Int.self))),
            "audience_total": .int(Int64(try message.decode("audience_total", as: Int.self))),
            "truncated": .bool(try message.decode("truncated")),
            "failed_reason": try message.decode("failed_reason", as: String?.self).map(JSONValue.string) ?? .null,
        ]
        // OneSignal's view: every message here went to Apple devices, so the iOS figures are the totals.
        view["platform_delivery_stats"] = ["ios": [
            "successful": view["successful"] ?? 0, "failed": view["failed"] ?? 0,
            "errored": view["errored"] ?? 0, "converted": view["converted"] ?? 0,
        ]]
        for field in Self.requestEchoes { view[field] = request[field] ?? .null }
        for field in Self.requestListEchoes { view[field] = request[field] ?? [] }
        for (field, value) in alertGateEchoes(request) { view[field] = value }
        // The texts of an ids-only message stay here, for the app's own records: shown, never sent.
        view["privacy"] = request["privacy"] ?? .string(NotificationPrivacy.full.rawValue)
        // A notification's quiet-hours mode, the default when it named none; Live Activity messages have none.
        view["quiet_hours"] = try MessageStore.kind(message) == .notification
            ? .string(request["quiet_hours"]?.stringValue ?? QuietHoursMode.default.rawValue) : .null
        view["errors_by_reason"] = .object(try reasonCounts(message, "errors_by_reason"))
        // Every reason, 0 when none: a client reads `suppressed.stale` without a key check.
        var suppressed = JSONObject(SuppressionReason.allCases.map { ($0.rawValue, JSONValue.int(0)) })
        for (reason, count) in try reasonCounts(message, "suppressed_by_reason") { suppressed[reason] = count }
        view["suppressed"] = .object(suppressed)
        return view
    }

    /// A reason → count column of the message row, by reason (a key's order is the reason's).
    static func reasonCounts(_ message: PostgresRow, _ column: String) throws -> JSONObject {
        let text: String = try message.decode(column)
        guard case .object(let counts) = try JSONValue.parse(text) else {
            throw InvariantViolation("messages.counted_\(column) is not an object: \(text)")
        }
        return JSONObject(counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}
