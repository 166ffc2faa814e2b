/// The stored form of a `LiveActivitySend` (version 1): `event`, `activity_id`, `name`,
/// `content_state`, and the optional `attributes`, `headings`, `contents`, `stale_date`,
/// `dismissal_date`, `priority`, `relevance_score`, `sound`, `idempotency_key`, `targeting`.
extension StoredSend {
    package static func encode(_ send: LiveActivitySend) -> JSONValue {
        var object = envelope(.liveActivity)
        object["event"] = .string(send.event.rawValue)
        object["activity_id"] = .string(send.activityID)
        object["name"] = .string(send.name)
        object["content_state"] = .object(send.contentState)
        object.put("attributes", send.attributes.map(JSONValue.object))
        object.put("headings", send.headings)
        object.put("contents", send.contents)
        object.put("stale_date", send.staleDate)
        object.put("dismissal_date", send.dismissalDate)
        object.put("priority", send.priority)
        object.put("relevance_score", send.relevanceScore)
        object.put("sound", send.sound)
        object.put("idempotency_key", send.idempotencyKey)
        object.put("targeting", send.targeting.map(encode))
        return .object(object)
    }

    package static func decodeLiveActivity(_ value: JSONValue) throws(StoredSendError) -> LiveActivitySend {
        var fields = try open(value, as: .liveActivity)
        let eventText = try fields.requiredString("event")
        guard let event = LiveActivityEvent(rawValue: eventText) else { throw StoredSendError("stored event '\(eventText)' is unknown") }
        guard let contentState = try fields.object("content_state") else {
            throw StoredSendError("stored send field 'content_state' is missing")
        }
        let send = LiveActivitySend(
            event: event, activityID: try fields.requiredString("activity_id"), name: try fields.requiredString("name"),
            attributes: try fields.object("attributes"), contentState: contentState,
            headings: try fields.stringMap("headings"), contents: try fields.stringMap("contents"),
            staleDate: try fields.double("stale_date"), dismissalDate: try fields.double("dismissal_date"),
            priority: try fields.int("priority").map(Int.init), relevanceScore: try fields.double("relevance_score"),
            sound: try fields.string("sound"), idempotencyKey: try fields.string("idempotency_key"),
            targeting: try fields.object("targeting").map { (object) throws(StoredSendError) in try decodeTargeting(object) })
        try fields.finish()
        return send
    }
}
