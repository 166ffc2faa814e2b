import Testing
import OpenPushCore

/// A browser recipient of `POST /notifications` planned as a `WebPushRequest`: the plaintext JSON
/// exactly (language, Liquid, privacy, ids only), the headers' values (TTL, Urgency, Topic), the
/// size limit, and an app whose web push is paused. No database, no clock.
@Suite struct DeliveryPlannerWebPushTests {
    static let now = 1_800_000_000.0
    static let p256 = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    static func send(_ fields: JSONObject) throws -> NotificationSend {
        var body: JSONObject = ["included_segments": ["Subscribed Users"]]
        for (key, value) in fields { body[key] = value }
        return try NotificationSendParser.parse(body).get()
    }

    static func app(_ id: String = "app_a", paused: Bool = false) -> DeliveryContext.App {
        var app = DeliveryContext.App(id: id, bundleID: nil)
        app.webPushPaused = paused
        return app
    }

    static func browser(_ id: String = "sub_web", app: String = "app_a", language: String? = nil, tags: [String: String] = [:],
                        hideDetails: Bool = false) -> DeliveryContext.Subscription {
        DeliveryContext.Subscription(id: id, appID: app, platform: "web", language: language, tags: tags,
                                     token: "https://push.example.com/send/\(id)", hideDetails: hideDetails,
                                     webKeys: .init(p256dh: p256, auth: auth, browser: .chrome))
    }

    static func context(_ send: NotificationSend, app: DeliveryContext.App = app(), sendTime: Double = now,
                        subscriptions: [DeliveryContext.Subscription] = [browser()]) -> DeliveryContext {
        var context = DeliveryContext()
        context.add(DeliveryContext.Message(id: "msg_1", appID: app.id, notification: send, sendTime: sendTime))
        context.add(app)
        for subscription in subscriptions { context.add(subscription) }
        return context
    }

    static func recipient(_ subscription: String = "sub_web", app: String = "app_a") -> ClaimedDelivery {
        ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: app,
                        subscriptionID: subscription, liveActivityID: nil, tokenKind: .device,
                        token: "https://push.example.com/send/\(subscription)", badge: nil, attempts: 1, createdAt: now)
    }

    static func request(_ context: DeliveryContext, _ delivery: ClaimedDelivery = recipient(), now: Double = now) throws -> WebPushRequest {
        try #require(try DeliveryPlanner.plan(delivery, context: context, now: now).get().webPush)
    }

    static func text(_ request: WebPushRequest) -> String { String(decoding: request.plaintext, as: UTF8.self) }

    @Test func everyFieldIsInThePlaintextInItsOrder() throws {
        let send = try Self.send([
            "headings": ["en": "Kick-off"], "contents": ["en": "The match starts"], "data": ["match": "42"],
            "chrome_web_icon": "https://x.io/i.png", "chrome_web_image": "https://x.io/p.png", "chrome_web_badge": "https://x.io/b.png",
            "web_url": "https://x.io/m/42", "web_push_topic": "score-42", "priority": 10, "ttl": 3600,
        ])
        let request = try Self.request(Self.context(send))
        #expect(Self.text(request) == #"{"title":"Kick-off","body":"The match starts","icon":"https://x.io/i.png","#
            + #""image":"https://x.io/p.png","badge":"https://x.io/b.png","url":"https://x.io/m/42","tag":"score-42","#
            + #""data":{"match":"42"},"openpush":{"notification_id":"msg_1","subscription_id":"sub_web"}}"#)
        #expect(request.endpoint == "https://push.example.com/send/sub_web")
        #expect(request.p256dh == Self.p256)
        #expect(request.auth == Self.auth)
        #expect(request.ttl == 3600)
        #expect(request.urgency == .high)
        #expect(request.topic == "score-42")
    }

    @Test func keysWithNoValueAreLeftOutAndTheDefaultsApply() throws {
        let request = try Self.request(Self.context(try Self.send(["contents": ["en": "Hi"]])))
        #expect(Self.text(request) == #"{"body":"Hi","openpush":{"notification_id":"msg_1","subscription_id":"sub_web"}}"#)
        #expect(request.ttl == WebPushRequest.defaultTTL)
        #expect(request.urgency == .normal)
        #expect(request.topic == nil)
    }

    @Test func theTTLIsWhatRemainsAndPriorityFiveIsNormal() throws {
        let send = try Self.send(["contents": ["en": "Hi"], "ttl": 600, "priority": 5])
        let request = try Self.request(Self.context(send, sendTime: Self.now - 100))
        #expect(request.ttl == 500)
        #expect(request.urgency == .normal)
    }

    @Test func theCollapseIDIsTheTagAndTheTopicAsGiven() throws {
        // Turned into a digest where it is sent when it is no Topic (`WebPushTopicDigest`).
        let request = try Self.request(Self.context(try Self.send(["contents": ["en": "Hi"], "collapse_id": "news 1"])))
        #expect(request.topic == "news 1")
        #expect(Self.text(request).contains(#""tag":"news 1""#))
    }

    @Test func textsAreInTheDevicesLanguageWithLiquidRendered() throws {
        let send = try Self.send(["headings": ["en": "Hello {{ first_name }}", "fr": "Bonjour {{ first_name }}"],
                                  "contents": ["en": "Your order", "fr": "Votre commande"]])
        let context = Self.context(send, subscriptions: [Self.browser("sub_fr", language: "fr", tags: ["first_name": "Zoé"]),
                                                         Self.browser("sub_en", language: "en", tags: ["first_name": "Ann"])])
        #expect(Self.text(try Self.request(context, Self.recipient("sub_fr")))
            == #"{"title":"Bonjour Zoé","body":"Votre commande","openpush":{"notification_id":"msg_1","subscription_id":"sub_fr"}}"#)
        #expect(Self.text(try Self.request(context, Self.recipient("sub_en")))
            == #"{"title":"Hello Ann","body":"Your order","openpush":{"notification_id":"msg_1","subscription_id":"sub_en"}}"#)
    }

    @Test func anIdsOnlyPushCarriesOnlyTheIdsAndThePrivacyText() throws {
        let send = try Self.send(["headings": ["en": "Secret"], "contents": ["en": "Balance: 1,000"], "privacy": "ids_only",
                                  "privacy_text": ["en": "You have a new message"], "data": ["k": "v"],
                                  "chrome_web_icon": "https://x.io/i.png"])
        #expect(Self.text(try Self.request(Self.context(send)))
            == #"{"body":"You have a new message","openpush":{"notification_id":"msg_1","subscription_id":"sub_web"}}"#)
        // With a privacy text that renders empty it still goes: the service worker shows its own line.
        let bare = try Self.send(["contents": ["en": "Balance: 1,000"], "privacy": "ids_only",
                                  "privacy_text": ["en": "{{ nothing_here }}"]])
        #expect(Self.text(try Self.request(Self.context(bare)))
            == #"{"openpush":{"notification_id":"msg_1","subscription_id":"sub_web"}}"#)
    }

    @Test func aBrowserThatHidesDetailsGetsThePrivacyText() throws {
        let send = try Self.send(["contents": ["en": "Balance: 1,000"], "privacy_text": ["en": "New activity"]])
        let context = Self.context(send, subscriptions: [Self.browser(hideDetails: true)])
        #expect(Self.text(try Self.request(context))
            == #"{"body":"New activity","openpush":{"notification_id":"msg_1","subscription_id":"sub_web"}}"#)
    }

    @Test func aPlaintextOverTheLimitIsRefused() throws {
        let send = try Self.send(["contents": ["en": .string(String(repeating: "x", count: 2000))],
                                  "data": ["blob": .string(String(repeating: "y", count: 2000))]])
        #expect(DeliveryPlanner.plan(Self.recipient(), context: Self.context(send), now: Self.now).failureValue
            == .permanent(DeliveryPlanner.webPushPayloadTooLarge))
    }

    @Test func aPausedAppsWebPushWaitsAndItsOtherAppDoesNot() throws {
        let send = try Self.send(["contents": ["en": "Hi"]])
        var context = Self.context(send, app: Self.app(paused: true))
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_b", notification: send, sendTime: Self.now))
        context.add(Self.app("app_b"))
        context.add(Self.browser("sub_b", app: "app_b"))
        guard case .failure(.deferred(let until)) = DeliveryPlanner.plan(Self.recipient(), context: context, now: Self.now)
        else { Issue.record("not deferred"); return }
        #expect(until == Self.now + DeliveryPlanner.webPushPauseRecheckSeconds)
        #expect(try Self.request(context, Self.recipient("sub_b", app: "app_b")).endpoint.hasSuffix("sub_b"))
    }

    @Test func recipientsAlikeShareOnePlaintextFinishedPerSubscription() throws {
        let send = try Self.send(["contents": ["en": "Hi"]])
        let context = Self.context(send, subscriptions: [Self.browser("sub_1"), Self.browser("sub_2")])
        var cache = DeliveryPlanner.PayloadCache()
        let first = try DeliveryPlanner.plan(Self.recipient("sub_1"), context: context, now: Self.now, lastTimestamps: [:], cache: &cache).get()
        let second = try DeliveryPlanner.plan(Self.recipient("sub_2"), context: context, now: Self.now, lastTimestamps: [:], cache: &cache).get()
        #expect(Self.text(try #require(first.webPush)).hasSuffix(#""subscription_id":"sub_1"}}"#))
        #expect(Self.text(try #require(second.webPush)).hasSuffix(#""subscription_id":"sub_2"}}"#))
    }

    @Test func aLiveActivityOrWidgetPushIsAppleOnly() throws {
        let send = try Self.send(["push_type": "widgets"])
        var delivery = Self.recipient()
        delivery.tokenKind = .widget
        #expect(DeliveryPlanner.plan(delivery, context: Self.context(send), now: Self.now).failureValue
            == .permanent(DeliveryPlanner.appleOnly))
    }

    @Test func theVAPIDPauseNeedsEveryWebPushOfTheJobRefusedAndAtLeastTen() {
        #expect(DeliveryOutcome.pausesWebPush(webPushes: 10, refused: 10))
        #expect(!DeliveryOutcome.pausesWebPush(webPushes: 9, refused: 9))
        #expect(!DeliveryOutcome.pausesWebPush(webPushes: 11, refused: 10))
        let delivery = Self.recipient()
        let (decision, effect) = DeliveryOutcome.decide(delivery, verdict: .credentials(APNSReason(rawValue: DeliveryPlanner.vapidRefused)),
                                                        policy: RetryPolicy(), service: .webPush)
        #expect(decision == .finished(.error, reason: DeliveryPlanner.vapidRefused))
        #expect(effect == nil)
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
