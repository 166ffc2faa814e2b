/// The body of `PATCH /apps/{app_id}/subscriptions/{id}`: OneSignal wraps the fields in
/// `{"subscription": {…}}`; the bare fields are accepted too. Either way only `enabled`, `tags`
/// and `hide_details` can change, and at least one must be sent.
public struct SubscriptionChanges: Sendable, Equatable {
    public var enabled: Bool?
    public var tags: TagChanges?
    public var hideDetails: Bool? = nil

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
        guard let changes, changes.enabled != nil || changes.tags != nil || changes.hideDetails != nil else {
            throw APIError.badRequest("nothing to change: send subscription.enabled, subscription.tags or subscription.hide_details")
        }
        self = changes
    }

    private static func read(_ fields: inout FieldReader) -> SubscriptionChanges {
        var changes = SubscriptionChanges(enabled: fields.bool("enabled"), tags: fields.tagChanges("tags"))
        changes.hideDetails = fields.bool("hide_details")
        return changes
    }
}
