import Testing
import OpenPushCore

/// `AlertPrivacy` decides, per device, the texts an alert carries: no database, no clock.
@Suite struct AlertPrivacyTests {
    static func decide(privacy: NotificationPrivacy = .full, hideDetails: Bool = false, title: String? = "T",
                       subtitle: String? = nil, body: String? = "B", privacyText: String? = nil,
                       localized: Bool = false) -> AlertPrivacy.Decision {
        AlertPrivacy.notification(privacy: privacy, hideDetails: hideDetails, title: title, subtitle: subtitle, body: body,
                                  privacyText: privacyText, defaultPrivacyText: "App default", localized: localized)
    }

    @Test func aNormalDeviceGetsTheMessagesOwnTexts() {
        #expect(Self.decide(subtitle: "S", privacyText: "P") == .send(.init(title: "T", subtitle: "S", body: "B", shape: .full)))
        // Blank texts are left out, not sent as "".
        #expect(Self.decide(title: " ", body: "B") == .send(.init(body: "B", shape: .full)))
    }

    @Test func aDeviceThatHidesDetailsGetsThePrivacyTextOrTheAppsDefault() {
        #expect(Self.decide(hideDetails: true, subtitle: "S", privacyText: "P") == .send(.init(body: "P", shape: .hidden)))
        #expect(Self.decide(hideDetails: true) == .send(.init(body: "App default", shape: .hidden)))
        // A privacy text that renders blank for this device falls back to the app's.
        #expect(Self.decide(hideDetails: true, privacyText: "  ") == .send(.init(body: "App default", shape: .hidden)))
        let noDefault = AlertPrivacy.notification(privacy: .full, hideDetails: true, title: "T", subtitle: nil, body: "B",
                                                  privacyText: nil, defaultPrivacyText: "")
        #expect(noDefault == .send(.init(body: AlertPrivacy.defaultPrivacyText, shape: .hidden)))
    }

    @Test func idsOnlySendsThePrivacyTextToEveryDevice() {
        for hideDetails in [false, true] {
            #expect(Self.decide(privacy: .idsOnly, hideDetails: hideDetails, subtitle: "S", privacyText: "P")
                == .send(.init(body: "P", shape: .idsOnly)))
        }
        // Never the app's default, never the texts: a privacy text that renders blank is blank.
        #expect(Self.decide(privacy: .idsOnly, privacyText: " ") == .blank)
        #expect(Self.decide(privacy: .idsOnly, privacyText: nil) == .blank)
    }

    @Test func anAlertThatRendersBlankCarriesThePrivacyTextOrIsBlank() {
        #expect(Self.decide(title: "", subtitle: " ", body: "\n", privacyText: "P") == .send(.init(body: "P", shape: .blankFallback)))
        #expect(Self.decide(title: nil, body: "", privacyText: nil) == .blank)
        #expect(Self.decide(title: nil, body: "", privacyText: " ") == .blank)
        // Blank even for a device that hides details: it would show nothing the others do not get.
        #expect(Self.decide(hideDetails: true, title: nil, body: nil) == .blank)
        #expect(Self.decide(hideDetails: true, title: nil, body: nil, privacyText: "P") == .send(.init(body: "P", shape: .hidden)))
        // A localization key words the alert on the device: not blank.
        #expect(Self.decide(title: nil, body: nil, localized: true) == .send(.init(shape: .full)))
        // Any one text is enough.
        #expect(Self.decide(title: nil, subtitle: "S", body: nil) == .send(.init(subtitle: "S", shape: .full)))
    }

    @Test func aLiveActivityAlertIsDroppedWhenBlankAndAStartIsNotSent() {
        func decide(_ event: LiveActivityEvent, hasTexts: Bool = true, hide: Bool = false, title: String?, body: String?)
            -> AlertPrivacy.LiveActivityDecision {
            AlertPrivacy.liveActivity(event: event, hasTexts: hasTexts, hideDetails: hide, title: title, body: body,
                                      defaultPrivacyText: "App default")
        }
        #expect(decide(.update, title: "T", body: "B") == .send(.init(title: "T", body: "B", shape: .full)))
        #expect(decide(.update, title: " ", body: "") == .dropAlert)
        #expect(decide(.end, title: nil, body: " ") == .dropAlert)
        #expect(decide(.start, title: "", body: "") == .blank)
        #expect(decide(.update, hide: true, title: "T", body: "B") == .send(.init(body: "App default", shape: .hidden)))
        #expect(decide(.start, hide: true, title: "", body: "") == .blank)
        // No texts at all (an update with only a state, or a sound): left as it is.
        #expect(decide(.update, hasTexts: false, title: nil, body: nil) == .send(.init(shape: .full)))
    }
}

/// The planner with `AlertPrivacy`: what the payload carries, and the batch cache.
@Suite struct DeliveryPlannerPrivacyTests {
    static let now = 1_800_000_000.0

    static func delivery(_ subscription: String, apnsID: String) -> ClaimedDelivery {
        ClaimedDelivery(id: 0, apnsID: apnsID, messageID: "msg_1", appID: "app_a", subscriptionID: subscription,
                        liveActivityID: nil, tokenKind: .device, token: subscription, badge: nil, attempts: 1, createdAt: now)
    }

    static func context(_ body: JSONObject, hidden: Bool = true) throws -> DeliveryContext {
        var request: JSONObject = ["included_segments": ["Subscribed Users"]]
        for (key, value) in body { request[key] = value }
        let send = try NotificationSendParser.parse(request).get()
        var context = DeliveryContext()
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: now))
        var app = DeliveryContext.App(id: "app_a", bundleID: "com.example.app")
        app.defaultPrivacyText = "Something happened"
        context.add(app)
        context.add(DeliveryContext.Subscription(id: "sub_plain", appID: "app_a", token: "sub_plain"))
        let hiddenDevice = DeliveryContext.Subscription(id: "sub_hidden", appID: "app_a", token: "sub_hidden", hideDetails: hidden)
        context.add(hiddenDevice)
        return context
    }

    static func payload(_ result: Result<DeliveryPlanner.Plan, DeliveryPlanner.Refusal>) -> JSONValue? {
        if case .success(let plan) = result { return plan.request.payload }
        return nil
    }

    /// Two devices of one job share one cache: the hidden one must not get the plain one's
    /// payload, nor the plain one the hidden one's — whichever is planned first.
    @Test(arguments: [["sub_plain", "sub_hidden"], ["sub_hidden", "sub_plain"]])
    func oneCacheServesADeviceThatHidesDetailsAndOneThatDoesNot(order: [String]) throws {
        let context = try Self.context(["headings": ["en": "Ana"], "contents": ["en": "Lunch?"]])
        var cache = DeliveryPlanner.PayloadCache()
        var payloads: [String: JSONValue] = [:]
        for (index, subscription) in order.enumerated() {
            let result = DeliveryPlanner.plan(Self.delivery(subscription, apnsID: "6f1e2d3c-0000-8000-8000-00000000000\(index)"),
                                              context: context, now: Self.now, lastTimestamps: [:], cache: &cache)
            payloads[subscription] = Self.payload(result)
        }
        #expect(payloads["sub_plain"] == ["aps": ["alert": ["title": "Ana", "body": "Lunch?"]]])
        #expect(payloads["sub_hidden"] == ["aps": ["alert": ["body": "Something happened"]]])
    }

    /// A device's own text and a hidden device's privacy text can be the same words, but not
    /// the same payload: the hidden one carries no `apns_alert` or `summary_arg`.
    @Test func theSameWordsAsOwnTextAndAsPrivacyTextAreCachedApart() throws {
        var context = try Self.context(["contents": ["en": "{{ nickname }}"], "apns_alert": ["launch-image": "a.png"],
                                        "summary_arg": "Ana"])
        context.add(DeliveryContext.Subscription(id: "sub_plain", appID: "app_a", tags: ["nickname": "Something happened"],
                                                 token: "sub_plain"))
        context.add(DeliveryContext.Subscription(id: "sub_hidden", appID: "app_a", tags: ["nickname": "Ana"], token: "sub_hidden",
                                                 hideDetails: true))
        var cache = DeliveryPlanner.PayloadCache()
        let own = DeliveryPlanner.plan(Self.delivery("sub_plain", apnsID: "6f1e2d3c-0000-8000-8000-000000000001"),
                                       context: context, now: Self.now, lastTimestamps: [:], cache: &cache)
        let hidden = DeliveryPlanner.plan(Self.delivery("sub_hidden", apnsID: "6f1e2d3c-0000-8000-8000-000000000002"),
                                          context: context, now: Self.now, lastTimestamps: [:], cache: &cache)
        #expect(Self.payload(own) == ["aps": ["alert": ["body": "Something happened", "launch-image": "a.png", "summary-arg": "Ana"]]])
        #expect(Self.payload(hidden) == ["aps": ["alert": ["body": "Something happened"]]])
        // Ids-only is cached apart from a hidden device's payload of the same words.
        let idsOnly = try Self.context(["contents": ["en": "Secret"], "privacy": "ids_only", "privacy_text": "Something happened",
                                        "url": "https://example.com/x", "data": ["id": "e1"]])
        var shared = DeliveryPlanner.PayloadCache()
        for subscription in ["sub_hidden", "sub_plain"] {
            let result = DeliveryPlanner.plan(Self.delivery(subscription, apnsID: "6f1e2d3c-0000-8000-8000-000000000003"),
                                              context: idsOnly, now: Self.now, lastTimestamps: [:], cache: &shared)
            #expect(Self.payload(result) == ["aps": ["alert": ["body": "Something happened"], "mutable-content": 1], "id": "e1"])
        }
    }

    @Test func aBlankAlertIsSuppressedButABackgroundPushIsNotBlank() throws {
        let context = try Self.context(["contents": ["en": "{{ nickname }}"]], hidden: false)
        let result = DeliveryPlanner.plan(Self.delivery("sub_plain", apnsID: "6f1e2d3c-0000-8000-8000-000000000001"),
                                          context: context, now: Self.now)
        guard case .failure(let refusal) = result else { Issue.record("sent: \(result)"); return }
        #expect(refusal == .suppressed(.blank))
        let background = try Self.context(["content_available": true, "data": ["k": "v"]], hidden: false)
        let plan = try DeliveryPlanner.plan(Self.delivery("sub_plain", apnsID: "6f1e2d3c-0000-8000-8000-000000000001"),
                                            context: background, now: Self.now).get()
        #expect(plan.request.payload == ["aps": ["content-available": 1], "k": "v"])
    }

    @Test func theNotificationPayloadStripsWhatWordsAHiddenOrIdsOnlyPush() throws {
        let send = try NotificationSendParser.parse([
            "included_segments": ["Subscribed Users"], "contents": ["en": "x"], "url": "https://example.com/x",
            "buttons": [["id": "b", "text": "Reply"]], "apns_alert": ["loc-key": "K"], "summary_arg": "Ana",
            "summary_arg_count": 2, "data": ["id": "1"],
        ]).get()
        func payload(_ shape: AlertPrivacy.Shape) throws -> JSONValue {
            var input = NotificationPushInput(send: send, body: "P", bundleID: "com.example.app", apnsID: "a", messageID: "msg_1",
                                              expiration: 0)
            input.privacy = shape
            return try NotificationPayload.build(input).get().payload
        }
        let osData: JSONValue = ["i": "msg_1", "u": "https://example.com/x", "buttons": [["i": "b", "n": "Reply"]]]
        #expect(try payload(.hidden) == ["aps": ["alert": ["body": "P", "summary-arg-count": 2], "mutable-content": 1],
                                         "id": "1", "os_data": osData])
        #expect(try payload(.idsOnly) == ["aps": ["alert": ["body": "P", "summary-arg-count": 2], "mutable-content": 1], "id": "1"])
        #expect(try payload(.full) == ["aps": ["alert": ["loc-key": "K", "body": "P", "summary-arg": "Ana", "summary-arg-count": 2],
                                               "mutable-content": 1], "id": "1", "os_data": osData])
    }
}

/// Texts that read only some tags are rendered once per batch for the recipients alike in those
/// tags (`DeliveryPlanner.textsKey`); every recipient still gets the text its own context renders.
@Suite struct DeliveryPlannerSharedTextsTests {
    static let now = 1_800_000_000.0
    static let tags: [String: [String: String]] = [
        "sub_1": ["name": "Ana", "city": "Porto"], "sub_2": ["name": "Bo", "city": "Porto"],
        "sub_3": ["name": "Ana", "city": "Lisboa"], "sub_4": [:],
    ]

    static func batch(_ message: DeliveryContext.Message, kind: TokenKind) throws -> [String: JSONValue] {
        var context = DeliveryContext()
        context.add(message)
        context.add(DeliveryContext.App(id: "app_a", bundleID: "com.example.app"))
        var deliveries: [ClaimedDelivery] = []
        for (index, (id, tags)) in Self.tags.sorted(by: { $0.key < $1.key }).enumerated() {
            context.add(DeliveryContext.Subscription(id: id, appID: "app_a", tags: tags, externalID: "u-\(index)", token: id))
            if kind == .update {
                context.add(DeliveryContext.Activity(id: "lact_\(index)", appID: "app_a", staleAt: now + 3600))
            }
            deliveries.append(ClaimedDelivery(
                id: Int64(index), apnsID: "6f1e2d3c-0000-8000-8000-00000000000\(index)", messageID: "msg_1", appID: "app_a",
                subscriptionID: id, liveActivityID: kind == .update ? "lact_\(index)" : nil, tokenKind: kind, token: id,
                badge: nil, attempts: 1, createdAt: now))
        }
        var cache = DeliveryPlanner.PayloadCache()
        var alerts: [String: JSONValue] = [:]
        for delivery in deliveries {
            let plan = try DeliveryPlanner.plan(delivery, context: context, now: now, lastTimestamps: [:], cache: &cache).get()
            alerts[delivery.subscriptionID] = plan.request.payload.objectValue?["aps"]?.objectValue?["alert"] ?? .null
        }
        return alerts
    }

    static func notification(_ contents: String) throws -> DeliveryContext.Message {
        let send = try NotificationSendParser.parse(["included_segments": ["Subscribed Users"], "headings": ["en": "Hi"],
                                                     "contents": ["en": .string(contents)]]).get()
        return DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: now)
    }

    static func liveActivityUpdate(_ contents: String) throws -> DeliveryContext.Message {
        let send = try LiveActivitySendParser.parseUpdateOrEnd(
            ["event": "update", "name": "n", "event_updates": ["home": 1], "headings": ["en": "Hi"], "contents": ["en": .string(contents)]],
            activityID: "game").get()
        return DeliveryContext.Message(id: "msg_1", appID: "app_a", send: send, activityType: "Score", pushTimestamp: Int(now))
    }

    static func body(_ alert: JSONValue?) -> String? { alert?.objectValue?["body"]?.stringValue }

    @Test(arguments: [TokenKind.device, .update])
    func recipientsAlikeInTheTagsReadShareATextAndEachGetsItsOwn(kind: TokenKind) throws {
        let template = "{{ name | default: \"friend\" }} of {{ city | default: \"nowhere\" }}"
        let message = kind == .device ? try Self.notification(template) : try Self.liveActivityUpdate(template)
        #expect(message.liquidTagNames == ["city", "name"])
        let alerts = try Self.batch(message, kind: kind)
        #expect(Self.body(alerts["sub_1"]) == "Ana of Porto")
        #expect(Self.body(alerts["sub_2"]) == "Bo of Porto")
        #expect(Self.body(alerts["sub_3"]) == "Ana of Lisboa")
        #expect(Self.body(alerts["sub_4"]) == "friend of nowhere")
    }

    @Test(arguments: [TokenKind.device, .update])
    func textsReadingTheSubscriptionAreEachRecipientsOwn(kind: TokenKind) throws {
        let template = "{{ name }} {{ subscription.id }}"
        let message = kind == .device ? try Self.notification(template) : try Self.liveActivityUpdate(template)
        #expect(message.liquidTagNames == nil)
        let alerts = try Self.batch(message, kind: kind)
        #expect(Self.body(alerts["sub_1"]) == "Ana sub_1")
        #expect(Self.body(alerts["sub_3"]) == "Ana sub_3")
    }
}
