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
    /// `app_url`, else `url`: opened when the notification is tapped (`os_data.u`).
    public var launchURL: String?
    /// `ios_attachments`: media id → URL or bundled file name, in request order (`os_data.att`).
    public var attachments: [NotificationAttachment]?
    /// `buttons`: action buttons, in request order (`os_data.buttons`).
    public var buttons: [NotificationButton]?
    /// `apns_alert`: Apple's localization keys and the like, merged into `aps.alert`.
    public var apnsAlert: JSONObject?
    /// `summary_arg` and `summary_arg_count`: `aps.alert.summary-arg(-count)`.
    public var summaryArg: String?
    public var summaryArgCount: Int?
    /// `idempotency_key` (or OneSignal's older `external_id`): lower-case UUID text.
    public var idempotencyKey: String?
    /// `custom_data`: what Liquid in the texts reads as `message.custom_data`.
    public var customData: JSONObject?
    /// Per-device delivery time and throttle (`NotificationScheduleParser`).
    public var schedule: NotificationSchedule = .immediate
    /// `dedupe_key`, `event_at` and `stale_after_seconds` (`AlertGates`).
    public var gates = AlertGates()
    /// `privacy_text`: language code → template text, sent instead of the texts to a device that
    /// hides details, by an ids-only message, or when every text renders empty.
    public var privacyText: [String: String]? = nil
    /// `privacy`: `ids_only` sends no texts to APNs (`NotificationPrivacy`).
    public var privacy: NotificationPrivacy = .full
    /// `quiet_hours`: what an alert does to a device in its quiet hours (`DeviceAttentionPolicy`).
    public var quietHours: QuietHoursMode = .default

    public init(kind: NotificationKind, name: String? = nil, headings: [String: String]? = nil,
                subtitle: [String: String]? = nil, contents: [String: String]? = nil,
                targeting: AudienceTargeting = .segments(included: ["Subscribed Users"], excluded: []),
                data: JSONObject? = nil, badge: NotificationBadge = .none, sound: String? = nil, category: String? = nil,
                threadID: String? = nil, collapseID: String? = nil, contentAvailable: Bool = false,
                mutableContent: Bool = false, interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil,
                priority: Int? = nil, ttl: Int? = nil, sendAfter: Double? = nil, targetContentIdentifier: String? = nil,
                appleExcluded: Bool = false, launchURL: String? = nil, attachments: [NotificationAttachment]? = nil,
                buttons: [NotificationButton]? = nil, apnsAlert: JSONObject? = nil, summaryArg: String? = nil,
                summaryArgCount: Int? = nil, idempotencyKey: String? = nil,
                customData: JSONObject? = nil) {
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
        self.launchURL = launchURL
        self.attachments = attachments
        self.buttons = buttons
        self.apnsAlert = apnsAlert
        self.summaryArg = summaryArg
        self.summaryArgCount = summaryArgCount
        self.idempotencyKey = idempotencyKey
        self.customData = customData
    }

    /// What OneSignal's iOS SDK finds in `os_data`: a tap URL, attachments or buttons.
    public var hasOneSignalData: Bool { launchURL != nil || attachments != nil || buttons != nil }

    /// Attachments and buttons need the Notification Service Extension, so `mutable-content`.
    public var needsServiceExtension: Bool { mutableContent || attachments != nil || buttons != nil }
}

/// One `ios_attachments` entry.
public struct NotificationAttachment: Sendable, Equatable {
    public var id: String
    /// An `http(s)` URL the extension downloads, or a file name in the app bundle.
    public var url: String

    public init(id: String, url: String) {
        self.id = id
        self.url = url
    }
}

/// One `buttons` entry. `icon` is OneSignal's Android drawable name: kept, never sent to Apple.
public struct NotificationButton: Sendable, Equatable {
    public var id: String
    public var text: String
    public var icon: String?

    public init(id: String, text: String, icon: String? = nil) {
        self.id = id
        self.text = text
        self.icon = icon
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
