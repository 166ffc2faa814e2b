/// A validated body of `POST /notifications` (OneSignal's field names). Texts are templates,
/// rendered per recipient; everything else is applied by `NotificationPayload`.
package struct NotificationSend: Sendable, Equatable {
    package var kind: NotificationKind
    package var name: String?
    /// Language code → template text.
    package var headings: [String: String]?
    package var subtitle: [String: String]?
    package var contents: [String: String]?
    package var targeting: AudienceTargeting
    /// Custom keys, placed beside `aps`.
    package var data: JSONObject?
    package var badge: NotificationBadge
    package var sound: String?
    package var category: String?
    package var threadID: String?
    package var collapseID: String?
    package var contentAvailable: Bool
    package var mutableContent: Bool
    package var interruptionLevel: InterruptionLevel?
    package var relevanceScore: Double?
    /// An explicit priority; `nil` means the kind's default.
    package var priority: Int?
    /// Seconds APNs keeps trying; `nil` means `NotificationPayload.defaultTTL`.
    package var ttl: Int?
    /// Unix seconds before which nothing is expanded or sent.
    package var sendAfter: Double?
    package var targetContentIdentifier: String?
    /// `isIos: false`: the sender excluded Apple devices.
    package var appleExcluded: Bool
    /// `isAndroid: false`: the sender excluded Android devices.
    package var androidExcluded = false
    /// `app_url`, else `url`: opened when the notification is tapped (`os_data.u`).
    package var launchURL: String?
    /// `ios_attachments`: media id → URL or bundled file name, in request order (`os_data.att`).
    package var attachments: [NotificationAttachment]?
    /// `buttons`: action buttons, in request order (`os_data.buttons`).
    package var buttons: [NotificationButton]?
    /// `apns_alert`: Apple's localization keys and the like, merged into `aps.alert`.
    package var apnsAlert: JSONObject?
    /// `summary_arg` and `summary_arg_count`: `aps.alert.summary-arg(-count)`.
    package var summaryArg: String?
    package var summaryArgCount: Int?
    /// `idempotency_key` (or OneSignal's older `external_id`): lower-case UUID text.
    package var idempotencyKey: String?
    /// `custom_data`: what Liquid in the texts reads as `message.custom_data`.
    package var customData: JSONObject?
    /// Per-device delivery time and throttle (`NotificationScheduleParser`).
    package var schedule: NotificationSchedule = .immediate
    /// `dedupe_key`, `event_at` and `stale_after_seconds` (`AlertGates`).
    package var gates = AlertGates()
    /// `privacy_text`: language code → template text, sent instead of the texts to a device that
    /// hides details, by an ids-only message, or when every text renders empty.
    package var privacyText: [String: String]? = nil
    /// `privacy`: `ids_only` sends no texts to APNs (`NotificationPrivacy`).
    package var privacy: NotificationPrivacy = .full
    /// `quiet_hours`: what an alert does to a device in its quiet hours (`DeviceAttentionPolicy`).
    package var quietHours: QuietHoursMode = .default
    /// The Android-only fields (channel, icons, picture, color, sound, group); the fields Android
    /// shares with Apple devices stay in theirs (`androidFields` joins them).
    package var android = AndroidNotificationFields()
    /// The web fields (icon, image, badge, url, topic) and the browsers left out.
    package var web = WebNotificationFields()

    package init(kind: NotificationKind, name: String? = nil, headings: [String: String]? = nil,
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
    package var hasOneSignalData: Bool { launchURL != nil || attachments != nil || buttons != nil }

    /// Attachments and buttons need the Notification Service Extension, so `mutable-content`.
    package var needsServiceExtension: Bool { mutableContent || attachments != nil || buttons != nil }
}

/// One `ios_attachments` entry.
package struct NotificationAttachment: Sendable, Equatable {
    package var id: String
    /// An `http(s)` URL the extension downloads, or a file name in the app bundle.
    package var url: String

    package init(id: String, url: String) {
        self.id = id
        self.url = url
    }
}

/// One `buttons` entry. `icon` is OneSignal's Android drawable name: kept, never sent to Apple.
package struct NotificationButton: Sendable, Equatable {
    package var id: String
    package var text: String
    package var icon: String?

    package init(id: String, text: String, icon: String? = nil) {
        self.id = id
        self.text = text
        self.icon = icon
    }
}

/// What a notification is on the wire; decided once from the request.
package enum NotificationKind: String, Sendable, Equatable {
    /// Visible content: `apns-push-type: alert`.
    case alert
    /// No visible content and `content_available`: wakes the app, shows nothing.
    case background
    /// `push_type: "widgets"`: a WidgetKit reload to the widget push token.
    case widgets
    /// `apns_push_type_override` of an extra kind: to the device's token of that kind
    /// (`ExtraTokenKind`), with its own push type, topic and payload.
    case voip
    case location
    case pushToTalk = "pushtotalk"
    case complication
    case fileProvider = "fileprovider"

    /// Spelled as the extra kind is (`ExtraTokenKindTests` holds every kind to it).
    package init(_ extra: ExtraTokenKind) {
        self.init(rawValue: extra.rawValue)!
    }

    /// The `deliveries.token_kind` its rows carry.
    package var tokenKind: TokenKind {
        switch self {
        case .alert, .background: .device
        case .widgets: .widget
        case .voip: .voip
        case .location: .location
        case .pushToTalk: .pushToTalk
        case .complication: .complication
        case .fileProvider: .fileProvider
        }
    }

    /// The extra token kind it goes to, if it goes to one.
    package var extraKind: ExtraTokenKind? { tokenKind.extraKind }
}

/// `ios_badgeType` with `ios_badgeCount`. OpenPush keeps a badge counter per subscription
/// (`subscriptions.badge_count`): `setTo` sets it, `increase` adds to it (negative lowers it,
/// never below 0), and the push carries the resulting absolute number.
package enum NotificationBadge: Sendable, Equatable {
    case none
    case setTo(Int)
    case increase(Int)
}

/// `ios_interruption_level`, with the APNs spelling as `apnsValue`.
package enum InterruptionLevel: String, Sendable, Equatable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time_sensitive"
    case critical

    package var apnsValue: String { self == .timeSensitive ? "time-sensitive" : rawValue }
}
