/// The body of `PATCH /apps/{app_id}/subscriptions/{id}`: OneSignal wraps the fields in
/// `{"subscription": {…}}`; the bare fields are accepted too. Either way only `enabled` and
/// `tags` can change, and at least one must be sent.
public struct SubscriptionChanges: Sendable, Equatable {
    public var enabled: Bool?
    public var tags: TagChanges?

    public init(enabled: Bool? = nil, tags: TagChanges? = nil) {
        self.enabled = enabled
        self.tags = tags
    }

    public init(body: JSONObject) throws(APIError) {
        var reader = FieldReader(body)
        let changes: SubscriptionChanges?
        if body["subscription"] != nil {
            changes = reader.nestedObject("subscription", required: true) { fields in
                let changes = Self.read(&fields)
                fields.rejectUnknownFields()
                return changes
            }
        } else {
            changes = Self.read(&reader)
        }
        reader.rejectUnknownFields()
        try reader.finish()
        guard let changes, changes.enabled != nil || changes.tags != nil else {
            throw APIError.badRequest("nothing to change: send subscription.enabled or subscription.tags")
        }
        self = changes
    }

    private static func read(_ fields: inout FieldReader) -> SubscriptionChanges {
        SubscriptionChanges(enabled: fields.bool("enabled"), tags: fields.tagChanges("tags"))
    }
}
