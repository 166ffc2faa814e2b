import OpenPushCore

extension MessageView {
    /// `dedupe_key`, `event_at` (unix seconds, whatever form the request used) and
    /// `stale_after_seconds` as the request gave them, `null` when absent. The request was
    /// validated when it was sent, so what it holds is what the stored send holds.
    static func alertGateEchoes(_ request: JSONObject) -> [(String, JSONValue)] {
        let eventAt = request["event_at"].flatMap(AlertGates.eventSeconds).map { seconds -> JSONValue in
            seconds.rounded() == seconds ? .int(Int64(seconds)) : .double(seconds)
        }
        return [
            ("dedupe_key", request["dedupe_key"]?.stringValue.map(JSONValue.string) ?? .null),
            ("event_at", eventAt ?? .null),
            ("stale_after_seconds", request["stale_after_seconds"]?.intValue.map(JSONValue.int) ?? .null),
        ]
    }
}
