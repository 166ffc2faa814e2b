/// The alert gates of a stored notification: `dedupe_key` (text), `event_at` (unix seconds) and
/// `stale_after_seconds` (integer), each left out when the request had none.
extension StoredSend {
    static func encode(_ gates: AlertGates, into object: inout JSONObject) {
        object.put("dedupe_key", gates.dedupeKey)
        object.put("event_at", gates.eventAt)
        object.put("stale_after_seconds", gates.staleAfterSeconds)
    }

    static func decodeGates(_ fields: inout StoredFields) throws(StoredSendError) -> AlertGates {
        AlertGates(dedupeKey: try fields.string("dedupe_key"), eventAt: try fields.double("event_at"),
                   staleAfterSeconds: try fields.int("stale_after_seconds").map(Int.init))
    }
}
