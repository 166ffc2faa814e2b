import Testing
import OpenPushCore

/// The planner decides, per recipient and with `now` passed in, what goes to APNs and what is
/// recorded instead. No database, no clock.
@Suite struct DeliveryPlannerTests {
    static let now = 1_800_000_000.0
    static let app = DeliveryContext.App(id: "app_a", bundleID: "com.example.app")

    static func recipient(_ kind: TokenKind = .update, token: String = "aa", attempts: Int = 1, createdAt: Double = now,
                          activity: String? = "lact_1", app: String = "app_a", subscription: String = "sub_1") -> ClaimedDelivery {
        ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: app,
                        subscriptionID: subscription, liveActivityID: activity, tokenKind: kind, token: token, badge: nil,
                        attempts: attempts, createdAt: createdAt)
    }

    static func update(pushTimestamp: Int?, cancelled: Bool = false) throws -> DeliveryContext.Message {
        let send = try LiveActivitySendParser.parseUpdateOrEnd(
            ["event": "update", "name": "n", "event_updates": ["home": 1], "headings": ["en": "{{ user.aliases.crm }}"]],
            activityID: "game").get()
        return DeliveryContext.Message(id: "msg_1", appID: "app_a", send: send, activityType: "Score", pushTimestamp: pushTimestamp,
                                       cancelled: cancelled)
    }

    static func context(_ message: DeliveryContext.Message, lastAccepted: Int? = nil, endedReason: String? = nil,
                        subscription: DeliveryContext.Subscription = .init(id: "sub_1", appID: "app_a", token: "aa")) -> DeliveryContext {
        var context = DeliveryContext()
        context.add(message)
        context.add(app)
        context.add(subscription)
        context.add(DeliveryContext.Activity(id: "lact_1", appID: "app_a", staleAt: now + 3600, lastPushTimestamp: lastAccepted,
                                             endedReason: endedReason))
        return context
    }

    static func refusal(_ result: Result<DeliveryPlanner.Plan, DeliveryPlanner.Refusal>) -> DeliveryPlanner.Refusal? {
        if case .failure(let refusal) = result { return refusal }
        return nil
    }

    @Test func aLiveActivityPushCarriesTheTimestampFixedAtEnqueueOnEveryAttempt() throws {
        let context = Self.context(try Self.update(pushTimestamp: 1_799_999_000), lastAccepted: 1_799_998_000)
        for attempt in 1...3 {
            let plan = try DeliveryPlanner.plan(Self.recipient(attempts: attempt), context: context, now: Self.now + Double(attempt)).get()
            #expect(plan.request.payload.objectValue?["aps"]?.objectValue?["timestamp"] == 1_799_999_000)
            #expect(plan.activityTimestamp?.timestamp == 1_799_999_000)
        }
    }

    @Test(arguments: [1_799_999_000, 1_799_999_500])
    func anUpdateNoNewerThanTheAcceptedOneIsSuperseded(lastAccepted: Int) throws {
        let context = Self.context(try Self.update(pushTimestamp: 1_799_999_000), lastAccepted: lastAccepted)
        #expect(Self.refusal(DeliveryPlanner.plan(Self.recipient(), context: context, now: Self.now)) == .superseded)
    }

    @Test func aMessageQueuedBeforeTimestampsWereFixedGetsOneAtSendTime() throws {
        let context = Self.context(try Self.update(pushTimestamp: nil), lastAccepted: Int(Self.now) + 5)
        let plan = try DeliveryPlanner.plan(Self.recipient(), context: context, now: Self.now).get()
        #expect(plan.activityTimestamp?.timestamp == Int(Self.now) + 6)
    }

    @Test func aLiveActivityPushOlderThanADayExpires() throws {
        let context = Self.context(try Self.update(pushTimestamp: 1))
        let old = Self.recipient(createdAt: Self.now - DeliveryPlanner.maximumAge - 1)
        #expect(Self.refusal(DeliveryPlanner.plan(old, context: context, now: Self.now)) == .permanent("Expired"))
    }

    @Test func aCancelledMessageSendsNothing() throws {
        let message = try Self.update(pushTimestamp: 1, cancelled: true)
        #expect(Self.refusal(DeliveryPlanner.plan(Self.recipient(), context: Self.context(message), now: Self.now)) == .cancelled)
    }

    @Test func aMissingBundleIDIsACredentialProblem() throws {
        var context = Self.context(try Self.update(pushTimestamp: 1))
        context.add(DeliveryContext.App(id: "app_a", bundleID: nil))
        #expect(Self.refusal(DeliveryPlanner.plan(Self.recipient(), context: context, now: Self.now)) == .credentials("MissingTopic"))
    }

    @Test func stopsStick() throws {
        let message = try Self.update(pushTimestamp: 1)
        let retired = DeliveryContext.Subscription(id: "sub_1", appID: "app_a", reachable: false, token: "aa")
        #expect(DeliveryPlanner.stopped(Self.recipient(), context: Self.context(message, subscription: retired)) == "Unsubscribed")
        #expect(DeliveryPlanner.stopped(Self.recipient(), context: Self.context(message, endedReason: "dead_token")) == "ActivityEnded")
        #expect(DeliveryPlanner.stopped(Self.recipient(), context: Self.context(message, endedReason: "remote")) == nil)
        let dead = DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa", tokenInvalid: true)
        #expect(DeliveryPlanner.stopped(Self.recipient(.device), context: Self.context(message, subscription: dead)) == "Unregistered")
        // A device token replaced since the send is no stop: the push goes to the new one.
        let moved = DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "bb")
        #expect(DeliveryPlanner.stopped(Self.recipient(.device), context: Self.context(message, subscription: moved)) == nil)
        let widgetless = DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa")
        #expect(DeliveryPlanner.stopped(Self.recipient(.widget), context: Self.context(message, subscription: widgetless)) == "Unregistered")
        let widget = DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa", widgetToken: "cc")
        #expect(DeliveryPlanner.stopped(Self.recipient(.widget), context: Self.context(message, subscription: widget)) == nil)
        #expect(DeliveryPlanner.stopped(Self.recipient(.pushToStart), context: Self.context(message)) == "Unregistered")
        var holding = Self.context(message)
        holding.checkedPushToStartTokens(appID: "app_a", gone: [])
        #expect(DeliveryPlanner.stopped(Self.recipient(.pushToStart), context: holding) == nil)
    }

    @Test func deviceAndWidgetRecipientsTakeTheTokenTheirSubscriptionHoldsNow() throws {
        var context = Self.context(try Self.update(pushTimestamp: 1),
                                   subscription: .init(id: "sub_1", appID: "app_a", token: "new", widgetToken: "widget_new"))
        context.add(DeliveryContext.Subscription(id: "sub_2", appID: "app_a", token: "other"))
        // The same subscription id in another app: its token is never taken.
        context.add(DeliveryContext.Subscription(id: "sub_3", appID: "app_b", token: "foreign"))
        let devices = [Self.recipient(.device, token: "", activity: nil), Self.recipient(.device, token: "old", activity: nil),
                       Self.recipient(.device, token: "", activity: nil, subscription: "sub_2"),
                       Self.recipient(.device, token: "", activity: nil, subscription: "sub_3"),
                       Self.recipient(.device, token: "kept", activity: nil, app: "app_b")]
        #expect(context.withCurrentTokens(devices).map(\.token) == ["new", "new", "other", "", "kept"])
        let widgets = [Self.recipient(.widget, token: "", activity: nil)]
        #expect(context.withCurrentTokens(widgets).map(\.token) == ["widget_new"])
        // Live Activity tokens are the ones read at the send.
        let updates = [Self.recipient(.update, token: "activity_token")]
        #expect(context.withCurrentTokens(updates).map(\.token) == ["activity_token"])
        var widgetless = DeliveryContext()
        widgetless.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "new"))
        #expect(widgetless.withCurrentTokens(widgets).map(\.token) == [""])
    }

    @Test func ttlZeroIsNowOrNever() throws {
        let send = try NotificationSendParser.parse(["contents": ["en": "x"], "ttl": 0, "included_segments": ["Subscribed Users"]]).get()
        var context = DeliveryContext()
        context.add(Self.app)
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa"))
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: Self.now))
        let device = Self.recipient(.device, activity: nil)
        let plan = try DeliveryPlanner.plan(device, context: context, now: Self.now + 1).get()
        #expect(plan.request.headers.expiration == 0)
        let late = Self.now + DeliveryPlanner.nowOrNeverGrace + 1
        #expect(Self.refusal(DeliveryPlanner.plan(device, context: context, now: late)) == .permanent("Expired"))
        let retry = Self.recipient(.device, attempts: 2, activity: nil)
        #expect(Self.refusal(DeliveryPlanner.plan(retry, context: context, now: Self.now + 1)) == .permanent("Expired"))
    }

    @Test func recipientsSharingAPayloadGetItBuiltOnceWithTheirOwnAPNSID() throws {
        let send = try NotificationSendParser.parse(["contents": ["en": "Hi {{ first_name | default: 'there' }}"],
                                                     "included_segments": ["Subscribed Users"]]).get()
        var context = DeliveryContext()
        context.add(Self.app)
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: Self.now))
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa"))
        context.add(DeliveryContext.Subscription(id: "sub_2", appID: "app_a", token: "bb"))
        context.add(DeliveryContext.Subscription(id: "sub_3", appID: "app_a", tags: ["first_name": "Ana"], token: "cc"))
        var cache = DeliveryPlanner.PayloadCache()
        var plans: [DeliveryPlanner.Plan] = []
        for (index, subscription) in ["sub_1", "sub_2", "sub_3"].enumerated() {
            var delivery = Self.recipient(.device, token: ["aa", "bb", "cc"][index], activity: nil, subscription: subscription)
            delivery.apnsID = "6f1e2d3c-0000-8000-8000-00000000000\(index)"
            plans.append(try DeliveryPlanner.plan(delivery, context: context, now: Self.now, lastTimestamps: [:], cache: &cache).get())
        }
        #expect(plans.map(\.request.headers.apnsID) == (0..<3).map { "6f1e2d3c-0000-8000-8000-00000000000\($0)" })
        #expect(plans[0].request.payloadBytes == plans[1].request.payloadBytes)
        let bodies = plans.map { $0.request.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue }
        #expect(bodies == ["Hi there", "Hi there", "Hi Ana"])
    }

    @Test func liveActivityRecipientsShareTheirPayloadButNotTheirStaleDate() throws {
        let message = try Self.update(pushTimestamp: 1_799_999_000)
        var context = Self.context(message)
        context.add(DeliveryContext.Subscription(id: "sub_2", appID: "app_a", token: "bb"))
        context.add(DeliveryContext.Activity(id: "lact_2", appID: "app_a", staleAt: Self.now + 600))
        var cache = DeliveryPlanner.PayloadCache()
        let first = try DeliveryPlanner.plan(Self.recipient(), context: context, now: Self.now, lastTimestamps: [:], cache: &cache).get()
        var second = Self.recipient(token: "bb", activity: "lact_2", subscription: "sub_2")
        second.apnsID = "6f1e2d3c-0000-8000-8000-000000000002"
        let other = try DeliveryPlanner.plan(second, context: context, now: Self.now, lastTimestamps: [:], cache: &cache).get()
        #expect(other.request.headers.apnsID == "6f1e2d3c-0000-8000-8000-000000000002")
        #expect(first.request.headers.apnsID == "6f1e2d3c-0000-8000-8000-000000000001")
        #expect(other.activityTimestamp?.activityID == "lact_2")
        let stale = { (plan: DeliveryPlanner.Plan) in plan.request.payload.objectValue?["aps"]?.objectValue?["stale-date"] }
        #expect(stale(first) != stale(other), "each activity keeps its own registered stale date")
    }

    @Test func twoAppsSharingAnExternalIDRenderTheirOwnAliases() throws {
        var context = DeliveryContext()
        for (app, crm) in [("app_a", "A-1"), ("app_b", "B-1")] {
            let send = try LiveActivitySendParser.parseUpdateOrEnd(
                ["event": "update", "name": "n", "event_updates": ["home": 1], "headings": ["en": "{{ user.aliases.crm }}"]],
                activityID: "game").get()
            context.add(DeliveryContext.Message(id: "msg_\(app)", appID: app, send: send, pushTimestamp: 10))
            context.add(DeliveryContext.App(id: app, bundleID: "com.example"))
            context.add(DeliveryContext.Subscription(id: "sub_\(app)", appID: app, externalID: "u1", token: "aa"))
            context.add(DeliveryContext.Activity(id: "lact_\(app)", appID: app, staleAt: Self.now + 3600))
            context.addAlias(label: "crm", value: crm, appID: app, externalID: "u1")
        }
        for (app, crm) in [("app_a", "A-1"), ("app_b", "B-1")] {
            var delivery = Self.recipient(activity: "lact_\(app)", app: app, subscription: "sub_\(app)")
            delivery.messageID = "msg_\(app)"
            let plan = try DeliveryPlanner.plan(delivery, context: context, now: Self.now).get()
            #expect(plan.request.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"] == .string(crm))
        }
        // A delivery naming another app's subscription finds nothing, not that app's row.
        var crossed = Self.recipient(activity: "lact_app_b", app: "app_a", subscription: "sub_app_b")
        crossed.messageID = "msg_app_a"
        #expect(Self.refusal(DeliveryPlanner.plan(crossed, context: context, now: Self.now)) == .permanent("MissingContext"))
    }
}

@Suite struct DeliveryOutcomeTests {
    static let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxDelay: 10)
    static let delivery = DeliveryPlannerTests.recipient(.device)

    @Test func eachVerdictDecidesTheRecipientsFate() {
        #expect(DeliveryOutcome.decide(Self.delivery, verdict: .accepted, policy: Self.policy).0 == .finished(.accepted, reason: nil))
        let dead = DeliveryOutcome.decide(Self.delivery, verdict: .deadToken(.unregistered), invalidSince: 12, policy: Self.policy)
        #expect(dead.0 == .finished(.error, reason: "Unregistered"))
        #expect(dead.1 == .deadToken(Self.delivery, invalidSince: 12))
        let paused = DeliveryOutcome.decide(Self.delivery, verdict: .credentials(.invalidProviderToken), policy: Self.policy)
        #expect(paused.0 == .held(reason: "InvalidProviderToken"))
        #expect(paused.1 == .pauseApp(appID: "app_a", reason: "InvalidProviderToken"))
        #expect(DeliveryOutcome.decide(Self.delivery, verdict: .permanent(.badTopic), policy: Self.policy).0
                == .finished(.error, reason: "BadTopic"))
        #expect(DeliveryOutcome.decide(Self.delivery, verdict: .retry(.serviceUnavailable), policy: Self.policy).0
                == .retry(reason: "ServiceUnavailable"))
    }

    @Test func retriesEndWithTheAttemptsOrForPushesThatMustNotRepeat() {
        var last = Self.delivery
        last.attempts = 3
        #expect(DeliveryOutcome.decide(last, verdict: .retry(.serviceUnavailable), policy: Self.policy).0
                == .finished(.error, reason: "ServiceUnavailable"))
        #expect(DeliveryOutcome.decide(Self.delivery, verdict: .retry(.serviceUnavailable), policy: Self.policy, retryable: false).0
                == .finished(.error, reason: "ServiceUnavailable"))
    }
}

extension DeliveryPlannerTests {
    /// A bulk check of an app's push-to-start recipients names the gone tokens only: every other
    /// recipient of that app holds its token, a gone one does not, and an app not checked holds none.
    @Test func aCheckedAppsPushToStartRecipientsHoldTheirTokensExceptTheGoneOnes() {
        var context = DeliveryContext()
        context.checkedPushToStartTokens(appID: "app_a", gone: [(subscriptionID: "sub_2", token: "start_2")])
        #expect(context.holdsPushToStartToken(Self.recipient(.pushToStart, token: "start_1", app: "app_a")))
        #expect(!context.holdsPushToStartToken(Self.recipient(.pushToStart, token: "start_2", app: "app_a", subscription: "sub_2")))
        // The same subscription id and token in another app were not checked.
        #expect(!context.holdsPushToStartToken(Self.recipient(.pushToStart, token: "start_2", app: "app_b", subscription: "sub_2")))
        #expect(!context.holdsPushToStartToken(Self.recipient(.pushToStart, token: "start_1", app: "app_b")))
        let message = DeliveryContext.Message(id: "msg_1", appID: "app_a")
        var stopped = Self.context(message)
        stopped.checkedPushToStartTokens(appID: "app_a", gone: [(subscriptionID: "sub_1", token: "aa")])
        #expect(DeliveryPlanner.stopped(Self.recipient(.pushToStart), context: stopped) == "Unregistered")
    }

    /// The context's keys hash the id alone; equality still takes the app, so an id two apps
    /// share finds each app's own row, and a third app finds none. Each app's check found the
    /// other app's token gone under the shared subscription id: that leaves its own token held.
    @Test func anIDTwoAppsShareFindsEachAppsOwnRow() {
        var context = DeliveryContext()
        for (app, other) in [("app_a", "app_b"), ("app_b", "app_a")] {
            context.add(DeliveryContext.Message(id: "msg_1", appID: app))
            context.add(DeliveryContext.Subscription(id: "sub_1", appID: app, token: "tok_\(app)"))
            context.checkedPushToStartTokens(appID: app, gone: [(subscriptionID: "sub_1", token: "start_\(other)")])
        }
        for app in ["app_a", "app_b"] {
            let delivery = Self.recipient(.pushToStart, token: "start_\(app)", app: app)
            #expect(context.subscription(for: delivery)?.token == "tok_\(app)")
            #expect(context.message(for: delivery)?.appID == app)
            #expect(context.holdsPushToStartToken(delivery))
        }
        // The other app's token under this app's subscription id is not held.
        #expect(!context.holdsPushToStartToken(Self.recipient(.pushToStart, token: "start_app_b", app: "app_a")))
        let stranger = Self.recipient(.pushToStart, token: "start_app_a", app: "app_c")
        #expect(context.subscription(for: stranger) == nil)
        #expect(context.message(for: stranger) == nil)
        #expect(!context.holdsPushToStartToken(stranger))
    }
}
