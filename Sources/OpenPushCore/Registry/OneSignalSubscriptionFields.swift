/// The fields of OneSignal's `Subscription` object (`SubscriptionBody.subscription`) as a
/// backend sends them to create or change a device. `enabled` and `notification_types` are one
/// fact — whether pushes go out — and must agree when both are sent. Fields OneSignal has and
/// OpenPush does not keep are type-checked and then ignored (`ignored`), so a migrating backend's
/// body is accepted as it is.
package struct OneSignalSubscriptionFields: Sendable, Equatable {
    package var id: String?
    package var type: OneSignalSubscriptionType?
    /// A browser subscription's keys, for a web `type` (creation only).
    package var web: WebPushSubscriptionKeys?
    /// In its type's stored form (`DeviceToken.normalized`); as sent when no type was given, to
    /// be compared with `DeviceToken.names`.
    package var token: String?
    /// From `enabled` and/or `notification_types`; nil when neither was sent.
    package var subscribed: Bool?
    /// `notification_types` as sent, kept to be read back (`shownNotificationTypes`).
    package var notificationTypes: Int64?
    package var appVersion: String?
    package var deviceModel: String?
    package var deviceOS: String?
    package var sdk: String?
    /// Seconds spent in the app, as the backend counts them.
    package var sessionTime: Int64?
    /// From OneSignal's `test_type`: 1 (development build) is APNs' sandbox, 2 (ad hoc) production.
    package var environment: DeviceEnvironment?
    /// The names of the accepted fields OpenPush does not keep, in the order read.
    package var ignored: [String] = []
    /// `web_p256` and `web_auth` as sent to a change (by name), not yet checked: they are a
    /// browser's new keys when the change also moves it to a new endpoint.
    package var sentWebKeys: [String: String] = [:]

    /// OneSignal's `notification_types`: positive is subscribed (iOS sends its permission bits),
    /// `-2` unsubscribed, other values of zero or below are OneSignal's reasons for not subscribed.
    package static let notificationTypes: ClosedRange<Int64> = -99...Int64(Int32.max)

    /// Accepted, checked and not kept: (name, what it must be).
    private static let notKept: [(String, Kind)] = [
        ("session_count", .integer), ("rooted", .boolean),
        ("net_type", .integer), ("carrier", .text),
    ]

    private enum Kind { case integer, text, boolean }

    package init() {}

    /// Whether `notification_types` means pushes go out.
    package static func isSubscribed(notificationTypes: Int64) -> Bool { notificationTypes > 0 }

    /// `notification_types` as read back: the value last sent while it agrees with whether pushes
    /// go out (a later change of `enabled` by another route wins), else 1 or -2.
    package static func shownNotificationTypes(stored: Int64?, subscribed: Bool) -> Int64 {
        if let stored, isSubscribed(notificationTypes: stored) == subscribed { return stored }
        return subscribed ? 1 : -2
    }

    /// Reads every field of the object (unknown fields are left for the caller to reject). A web
    /// `type` takes its endpoint and keys checked against `web` (a change, without it, keeps them as
    /// they are: `web_auth` and `web_p256` are then checked as text and not kept).
    package static func read(_ reader: inout FieldReader, typeRequired: Bool,
                             web rules: WebPushSubscriptionRules? = nil) -> OneSignalSubscriptionFields {
        var fields = OneSignalSubscriptionFields()
        let limit = SubscriptionRegistration.maxTextLength
        fields.id = reader.string("id", maxLength: limit)
        let typeSent = reader.has("type")
        fields.type = reader.subscriptionType("type", required: typeRequired)
        if typeSent, fields.type == nil {
            _ = reader.string("token")  // another platform's token: the type's problem says it all
        } else if let type = fields.type, let browser = type.browser, let rules {
            fields.token = reader.webPushEndpoint("token", required: typeRequired, rules: rules)
            fields.web = reader.webPushKeys(endpoint: fields.token, rules: rules, sent: browser)
        } else if let type = fields.type {
            fields.token = reader.deviceToken("token", required: typeRequired, service: type.service)
        } else {
            fields.token = reader.deviceTokenLookup("token", required: typeRequired)
        }
        let enabled = reader.bool("enabled")
        let types = reader.integer("notification_types", in: notificationTypes)
        fields.subscribed = enabled ?? types.map(isSubscribed(notificationTypes:))
        fields.notificationTypes = types
        if let enabled, let types, enabled != isSubscribed(notificationTypes: types) {
            reader.problem("enabled (\(enabled)) and notification_types (\(types)) disagree: notification_types "
                           + "above 0 is subscribed, 0 or below is not")
        }
        fields.appVersion = reader.string("app_version", maxLength: limit)
        fields.deviceModel = reader.string("device_model", maxLength: limit)
        fields.deviceOS = reader.string("device_os", maxLength: limit)
        fields.sdk = reader.string("sdk", maxLength: 64)
        fields.sessionTime = reader.integer("session_time", in: 0...Int64(Int32.max) * 1000)
        if let testType = reader.integer("test_type", in: 1...2) {
            fields.environment = testType == 1 ? .sandbox : .production
        }
        for name in ["web_auth", "web_p256"] where fields.web == nil && reader.has(name) {
            fields.sentWebKeys[name] = reader.string(name, maxLength: 4096)
            fields.ignored.append(name)
        }
        for (name, kind) in notKept where reader.has(name) {
            switch kind {
            case .integer: _ = reader.integer(name, in: 0...Int64(Int32.max))
            case .text: _ = reader.string(name, maxLength: 4096)
            case .boolean: _ = reader.bool(name)
            }
            fields.ignored.append(name)
        }
        return fields
    }
}
