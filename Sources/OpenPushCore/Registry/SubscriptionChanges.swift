/// The body of `PATCH /apps/{app_id}/subscriptions/{id}` (and of the by-token route): OneSignal
/// wraps the fields in `{"subscription": {…}}`; the bare fields are accepted too. `enabled` /
/// `notification_types`, `tags`, the device metadata of OneSignal's `Subscription` object and the
/// device preferences `hide_details`, `quiet_hours` and `muted_threads` can change; its `id`,
/// `type` and `token` may be sent but must be the device's own (`oneSignal`, checked by the
/// caller against the row). At least one field must be sent.
package struct SubscriptionChanges: Sendable, Equatable {
    package var enabled: Bool?
    package var tags: TagChanges?
    package var hideDetails: Bool? = nil
    /// Device preferences (`FieldReader+DeviceAttention`): kept when not sent.
    package var quietHours: FieldChange<QuietHoursWindow> = .keep
    package var mutedThreads: [String]?
    /// The fields of OneSignal's `Subscription` object that were sent.
    package var oneSignal = OneSignalSubscriptionFields()

    package init(enabled: Bool? = nil, tags: TagChanges? = nil) {
        self.enabled = enabled
        self.tags = tags
    }

    /// Whether it changes anything at all.
    var changesSomething: Bool {
        enabled != nil || tags != nil || hideDetails != nil || !quietHours.isKeep || mutedThreads != nil
            || oneSignal != OneSignalSubscriptionFields()
    }

    package static let nothingToChange = "nothing to change: send subscription.enabled, "
        + "subscription.notification_types, subscription.tags, subscription.app_version, subscription.device_model, "
        + "subscription.device_os, subscription.hide_details, subscription.quiet_hours or subscription.muted_threads"

    package init(body: JSONObject) throws(InvalidInput) {
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
        guard let changes, changes.changesSomething else {
            throw InvalidInput(Self.nothingToChange)
        }
        self = changes
    }

    private static func read(_ fields: inout FieldReader) -> SubscriptionChanges {
        var oneSignal = OneSignalSubscriptionFields.read(&fields, typeRequired: false)
        var changes = SubscriptionChanges(enabled: oneSignal.subscribed, tags: fields.tagChanges("tags", holder: .device))
        oneSignal.subscribed = nil  // carried by `enabled`
        changes.oneSignal = oneSignal
        changes.hideDetails = fields.bool("hide_details")
        changes.quietHours = fields.quietHoursChange()
        changes.mutedThreads = fields.mutedThreadsChange()
        return changes
    }
}
