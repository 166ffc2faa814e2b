/// The body of `POST /v1/apps/{app_id}/subscriptions`, validated. A field left `nil` was not
/// sent: a new row takes the default, a refreshed row keeps what it had.
package struct SubscriptionRegistration: Sendable, Equatable {
    package static let platforms = ["ios", "watchos", "macos", "android", "web"]
    /// `widget_push_token` from an Android device or a browser: WidgetKit is Apple's.
    package static let widgetTokenAppleOnly = "widget_push_token is for Apple devices only: an Android device has no WidgetKit push token"
    package static let widgetTokenNotForBrowsers = "widget_push_token is for Apple devices only: a browser has no WidgetKit push token"
    package static let webNotAccepted = "platform web is not accepted here"
    /// Longest accepted text for `external_id` and the device metadata fields.
    package static let maxTextLength = 255

    /// Lower-cased hex for an Apple device; an Android device's FCM token as sent.
    package var token: String
    package var platform: String?
    package var environment: DeviceEnvironment?
    /// `""` unlinks the device from its user (a sign-out).
    package var externalID: String?
    package var tags: TagChanges
    package var language: String?
    package var country: String?
    package var timezone: String?
    package var appVersion: String?
    package var deviceModel: String?
    package var deviceOS: String?
    package var enabled: Bool?
    /// The token this device held before; its subscription is superseded.
    package var previousToken: String?
    /// WidgetKit's push token (lower-cased hex) for widget reloads; kept when not sent.
    package var widgetPushToken: String?
    /// `hide_details`: alerts show the privacy text instead of their texts; kept when not sent.
    package var hideDetails: Bool? = nil
    /// Device preferences (`FieldReader+DeviceAttention`): kept when not sent.
    package var quietHours: FieldChange<QuietHoursWindow> = .keep
    package var mutedThreads: [String]?
    /// A browser subscription's keys and browser (`platform` `web`); nil for any other device.
    package var web: WebPushSubscriptionKeys?

    package init(token: String, platform: String? = nil, environment: DeviceEnvironment? = nil, externalID: String? = nil,
                tags: TagChanges = .none, language: String? = nil, country: String? = nil, timezone: String? = nil,
                appVersion: String? = nil, deviceModel: String? = nil, deviceOS: String? = nil, enabled: Bool? = nil,
                previousToken: String? = nil, widgetPushToken: String? = nil) {
        self.token = token
        self.platform = platform
        self.environment = environment
        self.externalID = externalID
        self.tags = tags
        self.language = language
        self.country = country
        self.timezone = timezone
        self.appVersion = appVersion
        self.deviceModel = deviceModel
        self.deviceOS = deviceOS
        self.enabled = enabled
        self.previousToken = previousToken
        self.widgetPushToken = widgetPushToken
    }

    /// Every problem of the body in one `InvalidInput`. A browser subscription (`platform` `web`)
    /// is checked against `web` (without it, `web` is refused).
    package init(body: JSONObject, web rules: WebPushSubscriptionRules? = nil) throws(InvalidInput) {
        var reader = FieldReader(body)
        // The platform decides the token's rules; a device that sends none is an iPhone.
        let service: PushService = if case .string(let sent)? = body["platform"] { PushService(platform: sent) } else { .apns }
        let token: String?
        if service == .webPush {
            if let rules {
                token = reader.webPushEndpoint("token", required: true, rules: rules)
                let sent = reader.webPushBrowser("type")
                web = reader.webPushKeys(endpoint: token, rules: rules, sent: sent)
            } else {
                token = nil
                reader.problem(Self.webNotAccepted)
            }
        } else {
            token = reader.deviceToken("token", required: true, service: service)
        }
        let limit = Self.maxTextLength
        platform = reader.choice("platform", Self.platforms)
        environment = reader.choice("environment", among: DeviceEnvironment.allCases)
        externalID = reader.string("external_id", maxLength: limit)
        tags = reader.tagChanges("tags", holder: .device) ?? .none
        language = reader.string("language", maxLength: limit)
        country = reader.string("country", maxLength: limit)
        timezone = reader.string("timezone", maxLength: limit)
        appVersion = reader.string("app_version", maxLength: limit)
        deviceModel = reader.string("device_model", maxLength: limit)
        deviceOS = reader.string("device_os", maxLength: limit)
        enabled = reader.bool("enabled")
        previousToken = reader.deviceToken("previous_token", service: service)
        if service != .apns {
            if let sent = reader.value("widget_push_token"), sent != .null {
                reader.problem(service == .fcm ? Self.widgetTokenAppleOnly : Self.widgetTokenNotForBrowsers)
            }
        } else {
            widgetPushToken = reader.deviceToken("widget_push_token")
        }
        hideDetails = reader.bool("hide_details")
        quietHours = reader.quietHoursChange()
        mutedThreads = reader.mutedThreadsChange()
        // Unknown fields are ignored, as on the other `/v1` routes: SDKs add fields over time.
        try reader.finish()
        self.token = token ?? ""  // finish() threw if it was missing or malformed
    }
}
