import Testing
import OpenPushCore

/// An Android recipient of `POST /notifications` planned as an FCM message: the body's fields
/// mapped one by one, texts per device (language, Liquid, privacy), quiet hours, data-only
/// pushes, and what an app needs to send to Android. No database, no clock.
@Suite struct DeliveryPlannerFCMTests {
    static let now = 1_800_000_000.0

    static func send(_ fields: JSONObject) throws -> NotificationSend {
        var body: JSONObject = ["included_segments": ["Subscribed Users"]]
        for (key, value) in fields { body[key] = value }
        return try NotificationSendParser.parse(body).get()
    }

    static func app(_ id: String = "app_a", bundleID: String? = "com.example.app", fcm: Bool = true,
                    paused: Bool = false) -> DeliveryContext.App {
        var app = DeliveryContext.App(id: id, bundleID: bundleID)
        app.fcmServiceAccount = fcm ? "sealed-account" : nil
        app.fcmPaused = paused
        return app
    }

    static func context(_ send: NotificationSend, app: DeliveryContext.App = app(),
                        subscriptions: [DeliveryContext.Subscription]? = nil) -> DeliveryContext {
        var context = DeliveryContext()
        context.add(DeliveryContext.Message(id: "msg_1", appID: app.id, notification: send, sendTime: now))
        context.add(app)
        for subscription in subscriptions ?? [android()] { context.add(subscription) }
        return context
    }

    static func android(_ id: String = "sub_droid", app: String = "app_a", language: String? = nil,
                        tags: [String: String] = [:], hideDetails: Bool = false) -> DeliveryContext.Subscription {
        DeliveryContext.Subscription(id: id, appID: app, platform: "android", language: language, tags: tags,
                                     token: "fcm:Token_\(id)", hideDetails: hideDetails)
    }

    static func recipient(_ subscription: String = "sub_droid", kind: TokenKind = .device, token: String? = nil,
                          app: String = "app_a") -> ClaimedDelivery {
        ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: app,
                        subscriptionID: subscription, liveActivityID: nil, tokenKind: kind, token: token ?? "fcm:Token_\(subscription)",
                        badge: nil, attempts: 1, createdAt: now)
    }

    static func plan(_ context: DeliveryContext, _ delivery: ClaimedDelivery = recipient(), now: Double = now)
        -> Result<DeliveryPlanner.Plan, DeliveryPlanner.Refusal>
    {
        DeliveryPlanner.plan(delivery, context: context, now: now)
    }

    /// The `message` object of the planned FCM request body.
    static func message(_ context: DeliveryContext, _ delivery: ClaimedDelivery = recipient(), now: Double = now) throws -> JSONObject {
        let plan = try plan(context, delivery, now: now).get()
        let fcm = try #require(plan.fcm)
        return try #require(fcm.json.objectValue?["message"]?.objectValue)
    }

    @Test func everyFieldOfTheBodyIsMappedToItsFCMField() throws {
        let send = try Self.send([
            "headings": ["en": "Kick-off"], "contents": ["en": "The match starts"],
            "data": ["match": "42", "score": ["home": 1], "live": true],
            "big_picture": "https://cdn.example.com/pitch.png", "existing_android_channel_id": "sports",
            "android_channel_id": "ignored-when-existing", "small_icon": "ic_ball", "android_accent_color": "FF00AA33",
            "android_sound": "whistle", "android_group": "match-42", "large_icon": "https://cdn.example.com/team.png",
            "collapse_id": "score-42", "priority": 5, "ttl": 3600, "url": "https://example.com/m/42",
        ])
        let message = try Self.message(Self.context(send))
        #expect(message["token"] == "fcm:Token_sub_droid")
        #expect(message["notification"] == ["title": "Kick-off", "body": "The match starts",
                                            "image": "https://cdn.example.com/pitch.png"])
        #expect(message["data"] == [
            "match": "42", "score": #"{"home":1}"#, "live": "true", "large_icon": "https://cdn.example.com/team.png",
            "url": "https://example.com/m/42", "openpush_notification_id": "msg_1", "openpush_subscription_id": "sub_droid",
        ])
        #expect(message["android"] == [
            "collapse_key": "score-42", "priority": "NORMAL", "ttl": "3600s",
            "notification": ["channel_id": "sports", "icon": "ic_ball", "color": "#00AA33", "sound": "whistle", "tag": "match-42"],
        ])
    }

    @Test func aVisibleNotificationDefaultsToHighPriorityAndTheAppleDefaultTTL() throws {
        let message = try Self.message(Self.context(try Self.send(["contents": ["en": "Hi"], "android_channel_id": "news"])))
        let android = try #require(message["android"]?.objectValue)
        #expect(android["priority"] == "HIGH")
        #expect(android["ttl"] == .string("\(NotificationPayload.defaultTTL)s"))
        #expect(android["notification"] == ["channel_id": "news"])
        // A retry an hour later carries what remains of the ttl, as APNs' expiration is absolute.
        let later = try Self.message(Self.context(try Self.send(["contents": ["en": "Hi"], "ttl": 7200])), now: Self.now + 3600)
        #expect(later["android"]?.objectValue?["ttl"] == "3600s")
    }

    @Test func theDevicesLanguageAndLiquidChooseItsTexts() throws {
        let send = try Self.send(["headings": ["en": "Hello {{ first_name }}", "fr": "Bonjour {{ first_name }}"],
                                  "contents": ["en": "Your order shipped", "fr": "Votre commande est partie"]])
        let context = Self.context(send, subscriptions: [
            Self.android("sub_fr", language: "fr", tags: ["first_name": "Ana"]),
            Self.android("sub_en", language: "en", tags: ["first_name": "Bo"]),
        ])
        let french = try Self.message(context, Self.recipient("sub_fr"))
        #expect(french["notification"] == ["title": "Bonjour Ana", "body": "Votre commande est partie"])
        #expect(french["token"] == "fcm:Token_sub_fr")
        let english = try Self.message(context, Self.recipient("sub_en"))
        #expect(english["notification"] == ["title": "Hello Bo", "body": "Your order shipped"])
        #expect(english["data"]?.objectValue?["openpush_subscription_id"] == "sub_en")
    }

    @Test func aDeviceThatHidesDetailsGetsThePrivacyTextOnly() throws {
        let send = try Self.send(["headings": ["en": "Dr. Smith"], "contents": ["en": "Your results are in"],
                                  "privacy_text": ["en": "New message"], "big_picture": "https://cdn.example.com/x.png",
                                  "large_icon": "face", "android_channel_id": "health"])
        let message = try Self.message(Self.context(send, subscriptions: [Self.android(hideDetails: true)]))
        #expect(message["notification"] == ["body": "New message"])
        #expect(message["data"]?.objectValue?["large_icon"] == nil)
        #expect(message["android"]?.objectValue?["notification"] == ["channel_id": "health"])
    }

    @Test func anIDsOnlyMessageIsDataOnlyWithTheIDs() throws {
        let send = try Self.send(["contents": ["en": "Secret"], "privacy": "ids_only", "privacy_text": ["en": "New message"],
                                  "data": ["thread": "t1"]])
        let message = try Self.message(Self.context(send))
        #expect(message["notification"] == nil)
        #expect(message["data"] == ["thread": "t1", "openpush_notification_id": "msg_1", "openpush_subscription_id": "sub_droid"])
        #expect(message["android"]?.objectValue?["priority"] == "HIGH")
        #expect(message["android"]?.objectValue?["notification"] == nil)
    }

    @Test func contentAvailableWithoutTextsIsADataOnlyPush() throws {
        let send = try Self.send(["content_available": true, "data": ["sync": "inbox"]])
        #expect(send.kind == .background)
        let message = try Self.message(Self.context(send))
        #expect(message["notification"] == nil)
        #expect(message["data"] == ["sync": "inbox", "openpush_notification_id": "msg_1", "openpush_subscription_id": "sub_droid"])
        #expect(message["android"]?.objectValue?["priority"] == "NORMAL")
    }

    @Test func quietHoursSilenceAnAndroidPushToNormalPriorityWithoutSound() throws {
        let night = QuietHoursWindow(start: 22 * 60, end: 7 * 60)!
        let quiet = DeviceAttention(quietHours: night, localSecondsOfDay: 23 * 3600, quietHoursEndAt: Self.now + 8 * 3600)
        let send = try Self.send(["contents": ["en": "Goal!"], "android_sound": "goal", "priority": 10])
        var context = Self.context(send, subscriptions: [Self.android("sub_quiet"), Self.android("sub_awake")])
        context.add(quiet, appID: "app_a", subscriptionID: "sub_quiet")
        let silenced = try Self.message(context, Self.recipient("sub_quiet"))
        #expect(silenced["android"]?.objectValue?["priority"] == "NORMAL")
        #expect(silenced["android"]?.objectValue?["notification"]?.objectValue?["sound"] == nil)
        #expect(silenced["notification"] == ["body": "Goal!"])
        let awake = try Self.message(context, Self.recipient("sub_awake"))
        #expect(awake["android"]?.objectValue?["priority"] == "HIGH")
        #expect(awake["android"]?.objectValue?["notification"]?.objectValue?["sound"] == "goal")

        var deferring = Self.context(try Self.send(["contents": ["en": "Goal!"], "quiet_hours": "defer", "thread_id": "scores"]),
                                     subscriptions: [Self.android("sub_quiet"), Self.android("sub_muted")])
        deferring.add(quiet, appID: "app_a", subscriptionID: "sub_quiet")
        deferring.add(DeviceAttention(mutedThreads: ["scores"]), appID: "app_a", subscriptionID: "sub_muted")
        #expect(DeliveryPlannerTests.refusal(Self.plan(deferring, Self.recipient("sub_quiet"))) == .deferred(until: Self.now + 8 * 3600))
        #expect(DeliveryPlannerTests.refusal(Self.plan(deferring, Self.recipient("sub_muted"))) == .suppressed(.muted))
    }

    @Test func androidNeedsNoBundleIDButAnFCMAccountAndNoPause() throws {
        let send = try Self.send(["contents": ["en": "Hi"]])
        let ios = DeliveryContext.Subscription(id: "sub_ios", appID: "app_a", token: "aa")
        let bare = Self.context(send, app: Self.app(bundleID: nil), subscriptions: [Self.android(), ios])
        #expect(try Self.plan(bare).get().fcm != nil)
        #expect(DeliveryPlannerTests.refusal(Self.plan(bare, Self.recipient("sub_ios", token: "aa"))) == .credentials("MissingTopic"))

        let noAccount = Self.context(send, app: Self.app(fcm: false), subscriptions: [Self.android(), ios])
        #expect(DeliveryPlannerTests.refusal(Self.plan(noAccount)) == .permanent(DeliveryPlanner.missingFCMCredentials))
        #expect(try Self.plan(noAccount, Self.recipient("sub_ios", token: "aa")).get().fcm == nil)

        let paused = Self.context(send, app: Self.app(paused: true), subscriptions: [Self.android(), ios])
        #expect(DeliveryPlannerTests.refusal(Self.plan(paused))
                == .deferred(until: Self.now + DeliveryPlanner.fcmPauseRecheckSeconds))
        // Its Apple devices are not held by its FCM pause.
        #expect(try Self.plan(paused, Self.recipient("sub_ios", token: "aa")).get().request.headers.topic == "com.example.app")
    }

    @Test func appleOnlyPushesAreRefusedForAndroidForGood() throws {
        let widgets = try Self.send(["push_type": "widgets"])
        let context = Self.context(widgets)
        #expect(DeliveryPlannerTests.refusal(Self.plan(context, Self.recipient(kind: .widget)))
                == .permanent(DeliveryPlanner.appleOnly))
    }

    @Test func cancelledStaleAndExpiredApplyAsOnApple() throws {
        let expired = Self.context(try Self.send(["contents": ["en": "Hi"], "ttl": 60]))
        #expect(DeliveryPlannerTests.refusal(Self.plan(expired, now: Self.now + 61)) == .permanent("Expired"))
        let cancelled = DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: try Self.send(["contents": ["en": "x"]]),
                                                sendTime: Self.now, cancelled: true)
        var context = Self.context(try Self.send(["contents": ["en": "x"]]))
        context.add(cancelled)
        #expect(DeliveryPlannerTests.refusal(Self.plan(context)) == .cancelled)
    }

    // MARK: outcomes

    static let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxDelay: 10)

    @Test func fcmRefusingTheAccountPausesTheAppsFCMOnlyAndHoldsThePush() {
        let delivery = Self.recipient()
        let fcm = DeliveryOutcome.decide(delivery, verdict: .credentials(APNSReason("UNAUTHENTICATED")), policy: Self.policy,
                                         service: .fcm)
        #expect(fcm.0 == .held(reason: "UNAUTHENTICATED"))
        #expect(fcm.1 == .pauseFCM(appID: "app_a", reason: "UNAUTHENTICATED"))
        // APNs' refusal still pauses the app's APNs sending, as before.
        let apns = DeliveryOutcome.decide(delivery, verdict: .credentials(.invalidProviderToken), policy: Self.policy)
        #expect(apns.1 == .pauseApp(appID: "app_a", reason: "InvalidProviderToken"))
    }

    @Test func aDeadFCMTokenEndsTheRowAndKillsTheToken() {
        let delivery = Self.recipient()
        let dead = DeliveryOutcome.decide(delivery, verdict: .deadToken(APNSReason("UNREGISTERED")), policy: Self.policy,
                                          service: .fcm)
        #expect(dead.0 == .finished(.error, reason: "UNREGISTERED"))
        #expect(dead.1 == .deadToken(delivery, invalidSince: nil))
    }
}
