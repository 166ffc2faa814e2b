import Testing
import OpenPushCore

/// The staleness gate with `now` passed in: a clock the test moves.
@Suite struct StalenessGateTests {
    static let event = 1_800_000_000.0

    static func alert(_ extra: JSONObject = [:]) throws -> NotificationSend {
        var body: JSONObject = ["app_id": "a", "contents": ["en": "Hi"], "included_segments": ["Subscribed Users"]]
        for (key, value) in extra { body[key] = value }
        return try NotificationSendParser.parse(body).get()
    }

    @Test func theMessageLimitWinsOverTheAppDefaultWhichZeroTurnsOff() {
        #expect(StalenessGate.limit(message: 60, appDefault: 900) == 60)
        #expect(StalenessGate.limit(message: nil, appDefault: 900) == 900)
        #expect(StalenessGate.limit(message: nil, appDefault: 0) == nil)
    }

    @Test func anEventIsStaleOnlyOnceItIsOlderThanTheLimit() {
        var now = Self.event
        #expect(!StalenessGate.isStale(eventAt: Self.event, limit: 900, now: now))
        now += 900
        #expect(!StalenessGate.isStale(eventAt: Self.event, limit: 900, now: now), "exactly at the limit it still goes")
        now += 1
        #expect(StalenessGate.isStale(eventAt: Self.event, limit: 900, now: now))
        #expect(!StalenessGate.isStale(eventAt: Self.event, limit: nil, now: now + 1e6), "no limit, never stale")
        #expect(!StalenessGate.isStale(eventAt: nil, limit: 900, now: now + 1e6), "no event, never stale")
    }

    @Test func anEventInTheFutureIsNotStaleUntilItHasAged() {
        let future = Self.event + 3600
        var now = Self.event
        #expect(!StalenessGate.isStale(eventAt: future, limit: 60, now: now))
        now = future + 60
        #expect(!StalenessGate.isStale(eventAt: future, limit: 60, now: now))
        now += 1
        #expect(StalenessGate.isStale(eventAt: future, limit: 60, now: now))
    }

    @Test func onlyAlertsAreHeldBack() throws {
        let alert = try Self.alert(["event_at": .double(Self.event), "stale_after_seconds": 60])
        #expect(StalenessGate.isStale(alert, appDefault: 0, now: Self.event + 61))
        #expect(!StalenessGate.isStale(alert, appDefault: 0, now: Self.event + 60))
        let byDefault = try Self.alert(["event_at": .double(Self.event)])
        #expect(StalenessGate.isStale(byDefault, appDefault: 30, now: Self.event + 31))
        #expect(!StalenessGate.isStale(byDefault, appDefault: 0, now: Self.event + 1e6))
        var background = try NotificationSendParser.parse(["app_id": "a", "content_available": true, "event_at": .double(Self.event),
                                                           "stale_after_seconds": 60, "included_segments": ["Subscribed Users"]]).get()
        #expect(background.kind == .background)
        #expect(!StalenessGate.isStale(background, appDefault: 60, now: Self.event + 1e6))
        background.kind = .widgets
        #expect(!StalenessGate.isStale(background, appDefault: 60, now: Self.event + 1e6))
    }

    @Test func thePlannerRecordsAStaleAlertOnEveryAttempt() throws {
        let send = try Self.alert(["event_at": .double(Self.event)])
        var context = DeliveryContext()
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: Self.event))
        var app = DeliveryContext.App(id: "app_a", bundleID: "com.example.app")
        app.staleAlertSeconds = 900
        context.add(app)
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", token: "aa"))
        func delivery(attempts: Int) -> ClaimedDelivery {
            ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: "app_a",
                            subscriptionID: "sub_1", liveActivityID: nil, tokenKind: .device, token: "aa", badge: nil,
                            attempts: attempts, createdAt: Self.event)
        }
        var now = Self.event + 899
        #expect((try? DeliveryPlanner.plan(delivery(attempts: 1), context: context, now: now).get()) != nil)
        // The retry's turn comes after the limit: it is not sent.
        now += 2
        guard case .failure(let refusal) = DeliveryPlanner.plan(delivery(attempts: 2), context: context, now: now) else {
            Issue.record("a stale retry was planned")
            return
        }
        #expect(refusal == .suppressed(.stale))
    }
}
