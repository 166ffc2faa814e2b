import Testing
import OpenPushCore

/// What quiet hours and muted threads do to one notification for one device, and how the
/// planner turns that into a push, a deferral or a `muted` record. No database, no clock.
@Suite struct DeviceAttentionPolicyTests {
    static let now = 1_800_000_000.0
    static let night = QuietHoursWindow(start: 22 * 60, end: 7 * 60)!
    /// 23:00 local, quiet until 07:00: eight hours away.
    static let quiet = DeviceAttention(quietHours: night, localSecondsOfDay: 23 * 3600, quietHoursEndAt: now + 8 * 3600)
    static let awake = DeviceAttention(quietHours: night, localSecondsOfDay: 12 * 3600, quietHoursEndAt: now + 19 * 3600)

    static func send(_ fields: JSONObject) throws -> NotificationSend {
        var body: JSONObject = ["contents": ["en": "Goal!"], "included_segments": ["Subscribed Users"], "ios_sound": "goal.caf"]
        for (key, value) in fields { body[key] = value }
        return try NotificationSendParser.parse(body).get()
    }

    @Test func theModeIsReadWithSilenceAsTheDefault() throws {
        #expect(try Self.send([:]).quietHours == .silence)
        #expect(try Self.send(["quiet_hours": "defer"]).quietHours == .defer)
        #expect(try Self.send(["quiet_hours": "ignore"]).quietHours == .ignore)
        #expect(try Self.send(["quiet_hours": .null]).quietHours == .silence)
        for bad: JSONValue in ["later", 1, ["defer"]] {
            guard case .failure(let error) = NotificationSendParser.parse(
                ["contents": ["en": "x"], "included_segments": ["Subscribed Users"], "quiet_hours": bad]) else {
                Issue.record("\(bad) was accepted")
                continue
            }
            #expect(error.messages.count == 1)
            #expect(error.messages[0].hasPrefix("quiet_hours must be one of: silence, defer, ignore"))
        }
    }

    @Test func inQuietHoursTheModeDecides() throws {
        #expect(DeviceAttentionPolicy.decide(try Self.send([:]), attention: Self.quiet, now: Self.now) == .silence)
        #expect(DeviceAttentionPolicy.decide(try Self.send(["quiet_hours": "defer"]), attention: Self.quiet, now: Self.now)
            == .deferUntil(Self.now + 8 * 3600))
        #expect(DeviceAttentionPolicy.decide(try Self.send(["quiet_hours": "ignore"]), attention: Self.quiet, now: Self.now) == .send)
    }

    @Test func outsideQuietHoursOrWithoutThemEverythingGoes() throws {
        for mode: JSONValue in ["silence", "defer", "ignore"] {
            let send = try Self.send(["quiet_hours": mode])
            #expect(DeviceAttentionPolicy.decide(send, attention: Self.awake, now: Self.now) == .send)
            #expect(DeviceAttentionPolicy.decide(send, attention: nil, now: Self.now) == .send)
            #expect(DeviceAttentionPolicy.decide(send, attention: DeviceAttention(localSecondsOfDay: 23 * 3600), now: Self.now) == .send)
        }
    }

    @Test(arguments: ["time_sensitive", "critical"])
    func timeSensitiveAndCriticalAlertsAreNeverHeldOrSilenced(level: String) throws {
        for mode: JSONValue in ["silence", "defer"] {
            let send = try Self.send(["quiet_hours": mode, "ios_interruption_level": .string(level)])
            #expect(DeviceAttentionPolicy.decide(send, attention: Self.quiet, now: Self.now) == .send)
        }
    }

    @Test func passiveAndActiveAlertsFollowQuietHours() throws {
        for level: JSONValue in ["passive", "active"] {
            let send = try Self.send(["quiet_hours": "defer", "ios_interruption_level": level])
            #expect(DeviceAttentionPolicy.decide(send, attention: Self.quiet, now: Self.now) == .deferUntil(Self.now + 8 * 3600))
        }
    }

    @Test func backgroundPushesAndWidgetReloadsAreNotAffected() throws {
        let background = try NotificationSendParser.parse(
            ["content_available": true, "included_segments": ["Subscribed Users"], "quiet_hours": "defer"]).get()
        let widgets = try NotificationSendParser.parse(
            ["push_type": "widgets", "included_segments": ["Subscribed Users"], "quiet_hours": "defer"]).get()
        var muting = Self.quiet
        muting.mutedThreads = ["scores"]
        #expect(DeviceAttentionPolicy.decide(background, attention: muting, now: Self.now) == .send)
        #expect(DeviceAttentionPolicy.decide(widgets, attention: muting, now: Self.now) == .send)
    }

    @Test func aMutedThreadIsSuppressedWhateverItsLevelOrTheHour() throws {
        let muting = DeviceAttention(mutedThreads: ["scores"], localSecondsOfDay: 12 * 3600)
        var quietMuting = Self.quiet
        quietMuting.mutedThreads = ["scores"]
        for level: JSONValue in ["active", "critical"] {
            let send = try Self.send(["thread_id": "scores", "ios_interruption_level": level, "quiet_hours": "ignore"])
            #expect(DeviceAttentionPolicy.decide(send, attention: muting, now: Self.now) == .suppress(.muted))
            #expect(DeviceAttentionPolicy.decide(send, attention: quietMuting, now: Self.now) == .suppress(.muted))
        }
        #expect(DeviceAttentionPolicy.decide(try Self.send(["thread_id": "news"]), attention: muting, now: Self.now) == .send)
        #expect(DeviceAttentionPolicy.decide(try Self.send([:]), attention: muting, now: Self.now) == .send)
    }

    @Test func silencedMeansPassiveWithoutSound() throws {
        let silenced = DeviceAttentionPolicy.silenced(try Self.send(["ios_interruption_level": "active"]))
        #expect(silenced.interruptionLevel == .passive)
        #expect(silenced.sound == nil)
    }

    // MARK: through the planner

    static func recipient(subscription: String, app: String = "app_a") -> ClaimedDelivery {
        ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: app,
                        subscriptionID: subscription, liveActivityID: nil, tokenKind: .device, token: "aa", badge: nil,
                        attempts: 1, createdAt: now)
    }

    static func context(_ send: NotificationSend, apps: [String] = ["app_a"]) -> DeliveryContext {
        var context = DeliveryContext()
        for app in apps {
            context.add(DeliveryContext.Message(id: "msg_1", appID: app, notification: send, sendTime: now))
            context.add(DeliveryContext.App(id: app, bundleID: "com.example.app"))
            for id in ["sub_quiet", "sub_plain"] { context.add(DeliveryContext.Subscription(id: id, appID: app, token: "aa")) }
        }
        return context
    }

    static func aps(_ result: Result<DeliveryPlanner.Plan, DeliveryPlanner.Refusal>) throws -> JSONObject {
        try #require(try result.get().request.payload.objectValue?["aps"]?.objectValue)
    }

    @Test func thePlannerSilencesOnlyTheDeviceInQuietHoursInOneBatch() throws {
        var context = Self.context(try Self.send([:]))
        context.add(Self.quiet, appID: "app_a", subscriptionID: "sub_quiet")
        var cache = DeliveryPlanner.PayloadCache()
        let quiet = try Self.aps(DeliveryPlanner.plan(Self.recipient(subscription: "sub_quiet"), context: context, now: Self.now,
                                                      lastTimestamps: [:], cache: &cache))
        let plain = try Self.aps(DeliveryPlanner.plan(Self.recipient(subscription: "sub_plain"), context: context, now: Self.now,
                                                      lastTimestamps: [:], cache: &cache))
        #expect(quiet["interruption-level"] == "passive")
        #expect(quiet["sound"] == nil)
        #expect(plain["interruption-level"] == nil)
        #expect(plain["sound"] == "goal.caf")
    }

    @Test func thePlannerDefersAndMutes() throws {
        var context = Self.context(try Self.send(["quiet_hours": "defer", "thread_id": "scores"]))
        context.add(Self.quiet, appID: "app_a", subscriptionID: "sub_quiet")
        context.add(DeviceAttention(mutedThreads: ["scores"]), appID: "app_a", subscriptionID: "sub_plain")
        #expect(DeliveryPlannerTests.refusal(DeliveryPlanner.plan(Self.recipient(subscription: "sub_quiet"), context: context,
                                                                  now: Self.now)) == .deferred(until: Self.now + 8 * 3600))
        #expect(DeliveryPlannerTests.refusal(DeliveryPlanner.plan(Self.recipient(subscription: "sub_plain"), context: context,
                                                                  now: Self.now)) == .suppressed(.muted))
    }

    @Test func oneAppsPreferencesNeverReachAnotherAppsDeviceOfTheSameID() throws {
        var context = Self.context(try Self.send(["thread_id": "scores"]), apps: ["app_a", "app_b"])
        context.add(DeviceAttention(mutedThreads: ["scores"]), appID: "app_a", subscriptionID: "sub_plain")
        #expect(DeliveryPlannerTests.refusal(DeliveryPlanner.plan(Self.recipient(subscription: "sub_plain"), context: context,
                                                                  now: Self.now)) == .suppressed(.muted))
        #expect(throws: Never.self) {
            try DeliveryPlanner.plan(Self.recipient(subscription: "sub_plain", app: "app_b"), context: context, now: Self.now).get()
        }
    }
}
