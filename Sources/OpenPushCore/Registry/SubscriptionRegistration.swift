/// The body of `POST /v1/apps/{app_id}/subscriptions`, validated. A field left `nil` was not
/// sent: a new row takes the default, a refreshed row keeps what it had.
public struct SubscriptionRegistration: Sendable, Equatable {
    public static let platforms = ["ios", "watchos", "macos"]
    /// Longest accepted text for `external_id` and the device metadata fields.
    public static let maxTextLength = 255

    /// Lower-cased hex.
    public var token: String
    public var platform: String?
    public var environment: DeviceEnvironment?
    /// `""` unlinks the device from its user (a sign-out).
    public var externalID: String?
    public var tags: TagChanges
    public var language: String?
    public var country: String?
    public var timezone: String?
    public var appVersion: String?
    public var deviceModel: String?
    public var deviceOS: String?
    public var enabled: Bool?
    /// The token this device held before; its subscription is superseded.
    public var previousToken: String?
    /// WidgetKit's push token (lower-cased hex) for widget reloads; kept when not sent.
    public var widgetPushToken: String?
    /// `hide_details`: alerts show the privacy text instead of their texts; kept when not sent.
    public var hideDetails: Bool? = nil
    /// Device preferences (`FieldReader+DeviceAttention`): kept when not sent.
    public var quietHours: FieldChange<QuietHoursWindow> = .keep
    public var mutedThreads: [String]?

    public init(token: String, platform: String? = nil, environment: DeviceEnvironment? = nil, externalID: String? = nil,
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

    /// Every problem of the body in one `InvalidInput`.
    public init(body: JSONObject) throws(InvalidInput) {
        var reader = FieldReader(body)
        let token = reader.deviceToken("token", required: true)
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
        previousToken = reader.deviceToken("previous_token")
        widgetPushToken = reader.deviceToken("widget_push_token")
        hideDetails = reader.bool("hide_details")
        quietHours = reader.quietHoursChange()
        mutedThreads = reader.mutedThreadsChange()
        // Unknown fields are ignored, as on the other `/v1` routes: SDKs add fields over time.
        try reader.finish()
        self.token = token ?? ""  // finish() threw if it was missing or malformed
    }
}
