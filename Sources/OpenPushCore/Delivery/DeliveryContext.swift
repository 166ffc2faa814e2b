/// Everything a claimed job needs to become pushes: the message, the app, and each recipient's
/// current state, loaded by the server in a few queries (one per table) rather than per
/// recipient.
///
/// Every map is keyed by app as well as by id, and the lookups take the delivery: a recipient
/// can only ever see its own app's messages, devices, users and counters, even if two apps
/// share an `external_id` or a batch ever held several apps' jobs.
package struct DeliveryContext: Sendable {
    /// An id within one app: the key of every per-batch map.
    package struct Key: Hashable, Sendable {
        package var appID: String
        package var id: String

        package init(appID: String, id: String) {
            self.appID = appID
            self.id = id
        }

        // Hashes the id alone (ids are unique, or nearly, across apps): half the hashing of a
        // lookup, a few per recipient. Equality still takes the app.
        package func hash(into hasher: inout Hasher) { hasher.combine(id) }

        package static func == (left: Key, right: Key) -> Bool { left.id == right.id && left.appID == right.appID }
    }

    /// A push-to-start token a subscription holds, within its app.
    private struct PushToStartKey: Hashable {
        var appID: String
        var subscriptionID: String
        var token: String

        // The token alone: unique, or nearly, across subscriptions and apps. Equality takes all three.
        func hash(into hasher: inout Hasher) { hasher.combine(token) }
    }

    /// A device's extra token of one kind (`ExtraTokenKind`), within its app.
    private struct ExtraTokenKey: Hashable {
        var appID: String
        var subscriptionID: String
        var kind: ExtraTokenKind
    }

    /// A class, immutable: every recipient of a job reads the same message, and a lookup then
    /// hands out one reference instead of copying (retaining) each of its many fields.
    package final class Message: Sendable {
        package let id: String
        package let appID: String
        package let send: LiveActivitySend?
        /// A notification's validated request (kind `notification`).
        package let notification: NotificationSend?
        package let activityType: String?
        /// Parsed once per job, rendered per recipient.
        package let headings: LocalizedTemplates
        package let contents: LocalizedTemplates
        package let subtitle: LocalizedTemplates
        /// A notification's `privacy_text` (`AlertPrivacy`).
        package let privacyText: LocalizedTemplates
        /// When the message became due: its `send_after`, else its creation.
        package let sendTime: Double
        /// A Live Activity push's `aps.timestamp`, fixed when it was enqueued (nil for messages
        /// queued before it was: then it is computed at send time).
        package let pushTimestamp: Int?
        package let cancelled: Bool

        /// Whether any of its texts needs the recipient's Liquid context.
        package var rendersLiquid: Bool {
            headings.usesLiquid || contents.usesLiquid || subtitle.usesLiquid || privacyText.usesLiquid
        }

        /// The tags its texts read, sorted, when they read nothing else of a recipient (none for
        /// plain texts): then a recipient's texts depend only on these tags' values, its language
        /// and its privacy choice, and recipients alike share one rendering. Nil when the texts
        /// read `subscription`, `user` or `message`, or a name they compute.
        package let liquidTagNames: [String]?

        /// The names of the recipient's context that are not its tags (`LocalizedText.context`).
        static let recipientContextNames: Set<String> = ["subscription", "user", "message"]

        package init(id: String, appID: String, send: LiveActivitySend? = nil, notification: NotificationSend? = nil,
                    activityType: String? = nil, sendTime: Double = 0, pushTimestamp: Int? = nil, cancelled: Bool = false) {
            self.id = id
            self.appID = appID
            self.send = send
            self.notification = notification
            self.activityType = activityType
            headings = LocalizedTemplates(send?.headings ?? notification?.headings)
            contents = LocalizedTemplates(send?.contents ?? notification?.contents)
            subtitle = LocalizedTemplates(notification?.subtitle)
            privacyText = LocalizedTemplates(notification?.privacyText)
            let read = LiquidTemplate.variables(of: [headings, contents, subtitle, privacyText].map(\.variables))
            liquidTagNames = read.flatMap { $0.isDisjoint(with: Self.recipientContextNames) ? $0.sorted() : nil }
            self.sendTime = sendTime
            self.pushTimestamp = pushTimestamp
            self.cancelled = cancelled
        }
    }

    package struct App: Sendable {
        package var id: String
        package var bundleID: String?
        package var watchBundleID: String?
        package var autoEndMinutes: Int?
        package var onesignalAlias: Bool
        /// The credential's parts, for the server's credential cache (never rendered).
        package var p8: String?
        package var keyID: String?
        package var teamID: String?
        /// The certificate (its PEM and its key's, sealed) of an app that authenticates with one
        /// (`apns_auth = 'certificate'`); nil for a token app, whose `.p8` parts are above.
        package var certificate: String?
        /// When the app last changed: the cache's key for its parsed credential.
        package var updatedAt: Double
        /// `dedupe_window_days` and `stale_alert_seconds` (0 = off): see `AlertDedupe`, `StalenessGate`.
        package var dedupeWindowDays = AlertDedupe.defaultWindowDays
        package var staleAlertSeconds = 0
        /// What a device that hides details is shown when the message has no `privacy_text`.
        package var defaultPrivacyText: String = AlertPrivacy.defaultPrivacyText
        /// The FCM service account as stored (sealed), for the server's FCM account cache; nil
        /// when the app has none.
        package var fcmServiceAccount: String?
        /// FCM refused the app's service account: its Android pushes wait until it changes.
        package var fcmPaused = false
        /// The app's VAPID private key as stored (sealed), nil until one is made or imported.
        package var webPushVAPIDKey: String?
        /// `web_push_vapid_public_key`: base64url of the key's public point.
        package var webPushVAPIDPublicKey: String?
        /// `web_push_subject`: the VAPID `sub`; nil means `OPENPUSH_WEB_PUSH_SUBJECT`.
        package var webPushSubject: String?
        /// Push services refused the app's VAPID key: its web pushes wait until the key or subject changes.
        package var webPushPaused = false

        package init(id: String, bundleID: String?, watchBundleID: String? = nil, autoEndMinutes: Int? = nil,
                    onesignalAlias: Bool = false, p8: String? = nil, keyID: String? = nil, teamID: String? = nil,
                    certificate: String? = nil, updatedAt: Double = 0) {
            self.id = id
            self.bundleID = bundleID
            self.watchBundleID = watchBundleID
            self.autoEndMinutes = autoEndMinutes
            self.onesignalAlias = onesignalAlias
            self.p8 = p8
            self.keyID = keyID
            self.teamID = teamID
            self.certificate = certificate
            self.updatedAt = updatedAt
        }
    }

    /// A class, immutable, like `Message`: the planner looks a recipient's subscription up a few
    /// times, and each copy of a struct retained and released every one of its fields.
    package final class Subscription: Sendable {
        package let id: String
        package let appID: String
        package let platform: String
        /// The service its platform is reached through, decided once here, not per push.
        package let service: PushService
        package let environment: DeviceEnvironment
        package let language: String?
        package let country: String?
        package let appVersion: String?
        package let tags: [String: String]
        package let externalID: String?
        /// Whether it may still be sent to at all (enabled, not retired).
        package let reachable: Bool
        /// The device token now, and whether APNs called it dead.
        package let token: String
        package let tokenInvalid: Bool
        package let widgetToken: String?
        /// The device hides alert details (`AlertPrivacy`).
        package let hideDetails: Bool
        /// Whether it set quiet hours or muted threads: only those devices' `DeviceAttention` is loaded.
        package let setsAttention: Bool
        /// A browser subscription's keys (`web_p256`, `web_auth`, base64url) and browser; nil otherwise.
        package let webKeys: WebKeys?

        package struct WebKeys: Sendable, Equatable {
            package var p256dh: String
            package var auth: String
            package var browser: WebPushBrowser?

            package init(p256dh: String, auth: String, browser: WebPushBrowser? = nil) {
                self.p256dh = p256dh
                self.auth = auth
                self.browser = browser
            }
        }

        package init(id: String, appID: String, platform: String = "ios", environment: DeviceEnvironment = .production,
                    language: String? = nil, country: String? = nil, appVersion: String? = nil, tags: [String: String] = [:],
                    externalID: String? = nil, reachable: Bool = true, token: String, tokenInvalid: Bool = false,
                    widgetToken: String? = nil, hideDetails: Bool = false, setsAttention: Bool = false,
                    webKeys: WebKeys? = nil) {
            self.id = id
            self.appID = appID
            self.platform = platform
            service = PushService(platform: platform)
            self.environment = environment
            self.language = language
            self.country = country
            self.appVersion = appVersion
            self.tags = tags
            self.externalID = externalID
            self.reachable = reachable
            self.token = token
            self.tokenInvalid = tokenInvalid
            self.widgetToken = widgetToken
            self.hideDetails = hideDetails
            self.setsAttention = setsAttention
            self.webKeys = webKeys
        }
    }

    package struct Activity: Sendable {
        package var id: String
        package var appID: String
        package var staleAt: Double
        /// The newest `aps.timestamp` APNs accepted for it.
        package var lastPushTimestamp: Int?
        package var endedReason: String?

        package init(id: String, appID: String, staleAt: Double, lastPushTimestamp: Int? = nil, endedReason: String? = nil) {
            self.id = id
            self.appID = appID
            self.staleAt = staleAt
            self.lastPushTimestamp = lastPushTimestamp
            self.endedReason = endedReason
        }
    }

    private var messages: [Key: Message] = [:]
    private var apps: [String: App] = [:]
    private var subscriptions: [Key: Subscription] = [:]
    private var activities: [Key: Activity] = [:]
    /// Apps whose push-to-start recipients were checked all at once (`checkedPushToStartTokens`):
    /// each holds its token unless it is among the gone ones.
    private var pushToStartCheckedApps: Set<String> = []
    private var goneTokens: Set<PushToStartKey> = []
    /// The extra tokens the recipients hold now, loaded only for a job of an extra kind.
    private var extraTokens: [ExtraTokenKey: String] = [:]
    /// (app, external id) → the user's aliases, for Liquid's `user`.
    private var aliases: [Key: [String: String]] = [:]
    /// (app, subscription id) → its quiet hours, muted threads and local time (`DeviceAttention`).
    var attention: [Key: DeviceAttention] = [:]

    package init() {}

    package mutating func add(_ message: Message) { messages[Key(appID: message.appID, id: message.id)] = message }
    package mutating func add(_ app: App) { apps[app.id] = app }
    package mutating func add(_ subscription: Subscription) {
        subscriptions[Key(appID: subscription.appID, id: subscription.id)] = subscription
    }
    package mutating func add(_ activity: Activity) { activities[Key(appID: activity.appID, id: activity.id)] = activity }
    /// Records a check of every push-to-start recipient of `appID` in this context against the
    /// tokens its subscriptions hold now: each still holds its token except those `gone`. The
    /// check answers with the few gone, not with every token held (thousands a job).
    package mutating func checkedPushToStartTokens(appID: String, gone: [(subscriptionID: String, token: String)]) {
        pushToStartCheckedApps.insert(appID)
        for entry in gone { goneTokens.insert(PushToStartKey(appID: appID, subscriptionID: entry.subscriptionID, token: entry.token)) }
    }
    package mutating func addExtraToken(_ token: String, kind: ExtraTokenKind, subscriptionID: String, appID: String) {
        extraTokens[ExtraTokenKey(appID: appID, subscriptionID: subscriptionID, kind: kind)] = token
    }
    /// Room for `count` more subscriptions: a job's thousand recipients inserted without
    /// rehashing as the map grows.
    package mutating func reserveCapacity(subscriptions count: Int) {
        subscriptions.reserveCapacity(subscriptions.count + count)
    }
    package mutating func addAlias(label: String, value: String, appID: String, externalID: String) {
        aliases[Key(appID: appID, id: externalID), default: [:]][label] = value
    }

    package func message(for delivery: ClaimedDelivery) -> Message? {
        message(forID: delivery.messageID, appID: delivery.appID)
    }

    package func message(forID id: String, appID: String) -> Message? {
        messages[Key(appID: appID, id: id)]
    }

    package func app(for delivery: ClaimedDelivery) -> App? { apps[delivery.appID] }

    package func app(id: String) -> App? { apps[id] }

    /// Whether any message loaded is an alert notification.
    package var holdsAlert: Bool { messages.values.contains { $0.notification?.kind == .alert } }

    package func subscription(for delivery: ClaimedDelivery) -> Subscription? {
        subscriptions[Key(appID: delivery.appID, id: delivery.subscriptionID)]
    }

    /// `deliveries` with each device or widget recipient's token as its subscription holds it
    /// now (`TokenKind.isReadWhenSent`): the one its push goes to, and the one a rejection
    /// kills. A recipient whose subscription is not loaded keeps what it had, and the planner
    /// refuses it for want of context. A widget recipient whose subscription dropped its widget
    /// token gets none, and the planner stops it. A recipient of an extra kind gets its token of
    /// that kind, or none (the planner counts it: `SuppressionReason.noToken`).
    package func withCurrentTokens(_ deliveries: [ClaimedDelivery]) -> [ClaimedDelivery] {
        guard let kind = deliveries.first?.tokenKind, kind.isReadWhenSent else { return deliveries }
        var resolved = deliveries
        for index in resolved.indices where resolved[index].tokenKind.isReadWhenSent {
            guard let subscription = subscription(for: resolved[index]) else { continue }
            let kind = resolved[index].tokenKind
            if let extra = kind.extraKind {
                resolved[index].token = extraTokens[ExtraTokenKey(appID: subscription.appID, subscriptionID: subscription.id, kind: extra)] ?? ""
            } else {
                resolved[index].token = kind == .widget ? subscription.widgetToken ?? "" : subscription.token
            }
        }
        return resolved
    }

    package func activity(for delivery: ClaimedDelivery) -> Activity? {
        delivery.liveActivityID.flatMap { activities[Key(appID: delivery.appID, id: $0)] }
    }

    package func holdsPushToStartToken(_ delivery: ClaimedDelivery) -> Bool {
        guard pushToStartCheckedApps.contains(delivery.appID) else { return false }
        // An empty set is skipped, not asked: asking hashes the key (a 64-byte token) first.
        return goneTokens.isEmpty
            || !goneTokens.contains(PushToStartKey(appID: delivery.appID, subscriptionID: delivery.subscriptionID, token: delivery.token))
    }

    /// The aliases of the user behind `externalID` in `appID` only.
    package func userAliases(appID: String, externalID: String) -> [String: String] {
        aliases[Key(appID: appID, id: externalID)] ?? [:]
    }
}
