/// A validated body of `POST /notifications` (OneSignal's field names). Texts are templates,
/// rendered per recipient; everything else is applied by `NotificationPayload`.
public struct NotificationSend: Sendable, Equatable {
    public var kind: NotificationKind
    public var name: String?
    /// Language code → template text.
    public var headings: [String: String]?
    public var subtitle: [String: String]?
    public var contents: [String: String]?
    public var targeting: AudienceTargeting
    /// Custom keys, placed beside `aps`.
    public var data: JSONObject?
    public var badge: NotificationBadge
    public var sound: String?
    public var category: String?
    public var threadID: String?
    public var collapseID: String?
    public var contentAvailable: Bool
    public var mutableContent: Bool
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    /// An explicit priority; `nil` means the kind's default.
    public var priority: Int?
    /// Seconds APNs keeps trying; `nil` means `NotificationPayload.defaultTTL`.
    public var ttl: Int?
    /// Unix seconds before which nothing is expanded or sent.
    public var sendAfter: Double?
    public var targetContentIdentifier: String?
    /// `isIos: false`: the sender excluded Apple devices, so nobody is a recipient.
    public var appleExcluded: Bool
    /// Per-device delivery time and throttle (`NotificationScheduleParser`).
    public var schedule: NotificationSchedule = .immediate

    public init(kind: NotificationKind, name: String? = nil, headings: [String: String]? = nil,
                subtitle: [String: String]? = nil, contents: [String: String]? = nil,
                targeting: AudienceTargeting = .segments(included: ["Subscribed Users"], excluded: []),
                data: JSONObject? = nil, badge: NotificationBadge = .none, sound: String? = nil, category: String? = nil,
                threadID: String? = nil, collapseID: String? = nil, contentAvailable: Bool = false,
                mutableContent: Bool = false, interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil,
                priority: Int? = nil, ttl: Int? = nil, sendAfter: Double? = nil, targetContentIdentifier: String? = nil,
                appleExcluded: Bool = false) {
        self.kind = kind
        self.name = name
        self.headings = headings
        self.subtitle = subtitle
        self.contents = contents
        self.targeting = targeting
        self.data = data
        self.badge = badge
        self.sound = sound
        self.category = category
        self.threadID = threadID
        self.collapseID = collapseID
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.priority = priority
        self.ttl = ttl
        self.sendAfter = sendAfter
        self.targetContentIdentifier = targetContentIdentifier
        self.appleExcluded = appleExcluded
    }
}

/// What a notification is on the wire; decided once from the request.
public enum NotificationKind: String, Sendable, Equatable {
    /// Visible content: `apns-push-type: alert`.
    case alert
    /// No visible content and `content_available`: wakes the app, shows nothing.
    case background
    /// `push_type: "widgets"`: a WidgetKit reload to the widget push token.
    case widgets

    /// The `deliveries.token_kind` its rows carry.
    public var tokenKind: TokenKind { self == .widgets ? .widget : .device }
}

/// `ios_badgeType` with `ios_badgeCount`. OpenPush keeps a badge counter per subscription
/// (`subscriptions.badge_count`): `setTo` sets it, `increase` adds to it (negative lowers it,
/// never below 0), and the push carries the resulting absolute number.
public enum NotificationBadge: Sendable, Equatable {
    case none
    case setTo(Int)
    case increase(Int)
}

/// `ios_interruption_level`, with the APNs spelling as `apnsValue`.
public enum InterruptionLevel: String, Sendable, Equatable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time_sensitive"
    case critical

    public var apnsValue: String { self == .timeSensitive ? "time-sensitive" : rawValue }
}
