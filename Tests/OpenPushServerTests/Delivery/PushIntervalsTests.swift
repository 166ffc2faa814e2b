import Foundation
import Testing
import APNs
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Live Activity update coalescing and the widget push throttle, through the real send routes,
/// against the simulator: what each device's activity received, and what each message records.
@Suite struct PushIntervalsTests {
    static let organizationKey = "org-key-for-push-interval-tests"

    static func harness(loops: Int = 1) async throws -> DeliveryHarness {
        var settings = DeliveryHarness.quickSettings()
        settings.loops = loops
        return try await DeliveryHarness.make(settings: settings, configure: { $0.organizationAPIKey = organizationKey })
    }

    /// Sets the app's intervals through `PUT /apps/{id}`.
    static func setIntervals(_ harness: DeliveryHarness, _ app: CreatedApp, coalescing: Int? = nil, widgets: Int? = nil) async throws {
        var body: JSONObject = [:]
        if let coalescing { body["live_activity_update_interval_seconds"] = .int(Int64(coalescing)) }
        if let widgets { body["widget_push_interval_seconds"] = .int(Int64(widgets)) }
        let response = await harness.app.request(.put, "/apps/\(app.app.id)", headers: ["Authorization": "Key \(organizationKey)"],
                                                 json: .object(body))
        try #require(response.status == 200, "PUT /apps: \(response.text)")
    }

    static func updateToken(_ device: Int, app: Int = 0) -> String { String(format: "%02x", 0xa0 + app * 16 + device) + String(repeating: "0", count: 62) }

    /// `devices` devices of `app`, each holding activity `activityID` with its own update token.
    static func openActivity(_ harness: DeliveryHarness, _ app: CreatedApp, activityID: String, devices: Int, appIndex: Int = 0) async throws {
        for device in 0..<devices {
            let token = String(format: "%02x", 0x10 + device) + String(repeating: "e", count: 62)
            try await DeliveryGuaranteesTests.openActivity(harness, app, activityID: activityID, token: token,
                                                           updateToken: updateToken(device, app: appIndex))
        }
    }

    static func send(_ harness: DeliveryHarness, _ app: CreatedApp, activityID: String, event: String = "update",
                     score: Int) async throws -> String {
        let response = await harness.app.request(.post, "/apps/\(app.app.id)/live_activities/\(activityID)/notifications",
                                                 headers: .restKey(app.restKey),
                                                 json: ["event": .string(event), "name": "n", "event_updates": ["home": .int(Int64(score))]])
        try #require(response.status == 201, "\(event): \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    /// The `home` of every push each update token received, in order.
    static func received(_ harness: DeliveryHarness) -> [String: [Int64]] {
        var scores: [String: [Int64]] = [:]
        for push in harness.simulator.accepted() where push.header("apns-push-type") == "liveactivity" {
            let state = push.payloadJSON?.objectValue?["aps"]?.objectValue?["content-state"]?.objectValue
            scores[push.deviceToken, default: []].append(state?["home"]?.intValue ?? -1)
        }
        return scores
    }

    /// Drains until `done` holds (or 120 s pass), then returns whether it held.
    static func drain(_ harness: DeliveryHarness, until done: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            try await harness.drain()
            if done() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return done()
    }

    /// As if an interval of `seconds` had passed: every Live Activity's and device's slot claimed
    /// that much earlier, and the pushes waiting for it due now.
    static func endIntervals(_ harness: DeliveryHarness, seconds: Double) async throws {
        try await harness.app.services.database.transaction { connection in
            for table in ["live_activity_update_slots", "widget_push_slots"] {
                try connection.query("UPDATE \(identifier: table) SET claimed_at = claimed_at - make_interval(secs => \(seconds + 1))")
            }
            try connection.query("UPDATE delivery_jobs SET due_at = now() WHERE due_at > now()")
        }
    }

    /// The app's jobs due now (or at any time, `includingLater`).
    static func jobsDue(_ harness: DeliveryHarness, _ app: CreatedApp, includingLater: Bool = false) async throws -> Int {
        try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE app_id = \(app.app.id) AND (\(includingLater) OR due_at <= now())
            """).firstRow().decode("n")
    }

    static func view(_ harness: DeliveryHarness, _ app: CreatedApp, _ messageID: String) async -> JSONObject {
        await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(app.restKey),
                                  query: ["app_id": app.app.id]).json?.objectValue ?? [:]
    }

    static func records(_ harness: DeliveryHarness, _ messageID: String) async throws -> [(state: String, reason: String?, carriedBy: String?)] {
        try await harness.app.services.database.query("""
            SELECT state, error_reason, carried_by FROM deliveries WHERE message_id = \(messageID) ORDER BY subscription_id
            """).map { (try $0.decode("state"), try $0.decode("error_reason"), try $0.decode("carried_by")) }
    }

    static func suppressed(_ view: JSONObject, _ reason: SuppressionReason) -> Int64? {
        view["suppressed"]?.objectValue?[reason.rawValue]?.intValue
    }

    // MARK: Live Activity coalescing

    /// Two devices hold one activity id; ticks come faster than the interval. Each device's
    /// activity gets the first at once, then exactly one more — the newest — when the interval
    /// ends; the ticks between are `coalesced`, carried by it. Two engines run at once.
    @Test func ticksWithinTheIntervalAreCoalescedIntoTheNewest() async throws {
        let harness = try await Self.harness(loops: 2)
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        // A minute: the three ticks are queued and looked at within it however loaded the
        // machine; its end is brought forward by moving the slots back (`endIntervals`).
        try await Self.setIntervals(harness, app, coalescing: 60)
        try await Self.openActivity(harness, app, activityID: "game-1", devices: 2)
        let first = try await Self.send(harness, app, activityID: "game-1", score: 1)
        let tokens = [Self.updateToken(0), Self.updateToken(1)]
        #expect(try await Self.drain(harness) { Self.received(harness).values.map(\.count) == [1, 1] })
        var ticks: [String] = []
        for score in 2...4 { ticks.append(try await Self.send(harness, app, activityID: "game-1", score: score)) }
        // Queued as jobs when sent (an update's recipients are known at once).
        #expect(try await Self.jobsDue(harness, app) == 3)
        // Two workers at once: they must still send one push per activity in the interval.
        let second = DeliveryEngine(services: harness.app.services, client: harness.client, settings: DeliveryHarness.quickSettings(),
                                    logger: .discarding())
        harness.engine.start()
        second.start()
        // Within the interval the ticks wait: each has been looked at (deferred to its end), and
        // nothing more went.
        let deferred = ContinuousClock.now + .seconds(120)
        while try await Self.jobsDue(harness, app) > 0, ContinuousClock.now < deferred {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(Self.received(harness).values.map(\.count) == [1, 1])
        // The interval ends: one more push per activity, the newest.
        try await Self.endIntervals(harness, seconds: 60)
        let deadline = ContinuousClock.now + .seconds(120)
        while Self.received(harness).values.map(\.count) != [2, 2], ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        // Nothing more comes in the next interval: nothing is left to send.
        try await Self.endIntervals(harness, seconds: 60)
        let emptied = ContinuousClock.now + .seconds(120)
        while try await Self.jobsDue(harness, app, includingLater: true) > 0, ContinuousClock.now < emptied {
            try await Task.sleep(for: .milliseconds(50))
        }
        await second.stop()
        #expect(try await Self.jobsDue(harness, app, includingLater: true) == 0)
        let received = Self.received(harness)
        #expect(received == [tokens[0]: [1, 4], tokens[1]: [1, 4]])
        for tick in ticks.dropLast() {
            #expect(try await Self.records(harness, tick).map(\.state) == ["suppressed", "suppressed"])
            #expect(try await Self.records(harness, tick).map(\.carriedBy) == [ticks[2], ticks[2]])
            let view = await Self.view(harness, app, tick)
            #expect(Self.suppressed(view, .coalesced) == 2 && view["successful"] == 0 && view["remaining"] == 0, "\(view)")
        }
        let last = await Self.view(harness, app, ticks[2])
        #expect(last["successful"] == 2 && Self.suppressed(last, .coalesced) == 0, "\(last)")
        #expect(await Self.view(harness, app, first)["successful"] == 2)
    }

    /// A tick while the interval is taken waits for it (counted in `remaining`); an `end` is
    /// never held and drops it, `coalesced` carried by the end.
    @Test func anEndGoesAtOnceAndDropsTheWaitingUpdates() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        try await Self.setIntervals(harness, app, coalescing: 60)
        try await Self.openActivity(harness, app, activityID: "order-9", devices: 1)
        _ = try await Self.send(harness, app, activityID: "order-9", score: 1)
        try await harness.drain()
        let waiting = try await Self.send(harness, app, activityID: "order-9", score: 2)
        try await harness.drain()
        #expect(Self.received(harness) == [Self.updateToken(0): [1]])
        #expect(await Self.view(harness, app, waiting)["remaining"] == 1)
        let end = try await Self.send(harness, app, activityID: "order-9", event: "end", score: 3)
        #expect(try await Self.drain(harness) { Self.received(harness)[Self.updateToken(0)]?.count == 2 })
        try await harness.drain()
        #expect(try await NotificationRoutesTests.count(harness, "SELECT count(*)::int AS n FROM delivery_jobs") == 0)
        #expect(Self.received(harness) == [Self.updateToken(0): [1, 3]])
        let events = harness.simulator.accepted().compactMap { $0.payloadJSON?.objectValue?["aps"]?.objectValue?["event"]?.stringValue }
        #expect(events == ["update", "end"])
        #expect(try await Self.records(harness, waiting).map(\.state) == ["suppressed"])
        #expect(try await Self.records(harness, waiting).map(\.reason) == ["coalesced"])
        #expect(try await Self.records(harness, waiting).map(\.carriedBy) == [end])
        let view = await Self.view(harness, app, waiting)
        #expect(Self.suppressed(view, .coalesced) == 1 && view["remaining"] == 0, "\(view)")
    }

    /// The interval's update meets a 503; a newer one comes while it waits for its retry. The
    /// retry does not send the older state again: the newer one goes in its place, and the
    /// older one is `coalesced`, carried by it.
    @Test func aFailedUpdatesRetryGivesWayToANewerOne() async throws {
        let harness = try await DeliveryHarness.make(settings: DeliveryGuaranteesTests.slowRetries(),
                                                     configure: { $0.organizationAPIKey = Self.organizationKey })
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        try await Self.setIntervals(harness, app, coalescing: 60)
        let updateToken = "5030" + String(repeating: "8", count: 60)
        try await DeliveryGuaranteesTests.openActivity(harness, app, activityID: "game", token: "aa" + String(repeating: "3", count: 62),
                                                       updateToken: updateToken)
        let older = try await Self.send(harness, app, activityID: "game", score: 1)
        try await harness.drain()
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        let newer = try await Self.send(harness, app, activityID: "game", score: 2)
        try await harness.drain()
        #expect(Self.received(harness).isEmpty, "the newer one waits for the interval the older one holds")
        // Only the older one's retry comes due (the newer one waits for the interval's end).
        try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE message_id = \(older)")
        try await harness.drain()
        #expect(Self.received(harness) == [updateToken: [2]])
        #expect(try await Self.records(harness, older).map(\.reason) == ["coalesced"])
        #expect(try await Self.records(harness, older).map(\.carriedBy) == [newer])
        #expect(try await Self.records(harness, newer).map(\.state) == ["accepted"])
    }

    /// With the interval at 0 every update goes at once, as before.
    @Test func zeroTurnsCoalescingOff() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        try await Self.setIntervals(harness, app, coalescing: 0)
        try await Self.openActivity(harness, app, activityID: "game-2", devices: 1)
        for score in 1...3 {
            _ = try await Self.send(harness, app, activityID: "game-2", score: score)
            try await harness.drain()
        }
        #expect(Self.received(harness) == [Self.updateToken(0): [1, 2, 3]])
    }

    /// Two apps, the same device token and activity id in each: one app's busy interval does not
    /// hold the other's update, nor its widget reload.
    @Test func oneAppsIntervalsDoNotGateAnotherApps() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.shutdown() } }
        let first = harness.created
        let second = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                 apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        for app in [first, second] { try await Self.setIntervals(harness, app, coalescing: 60, widgets: 60) }
        try await Self.openActivity(harness, first, activityID: "shared", devices: 1, appIndex: 0)
        try await Self.openActivity(harness, second, activityID: "shared", devices: 1, appIndex: 1)
        _ = try await Self.send(harness, first, activityID: "shared", score: 1)
        try await harness.drain()
        let held = try await Self.send(harness, first, activityID: "shared", score: 2)
        try await harness.drain()
        // The other app's first update goes at once.
        _ = try await Self.send(harness, second, activityID: "shared", score: 1)
        try await harness.drain()
        #expect(Self.received(harness) == [Self.updateToken(0, app: 0): [1], Self.updateToken(0, app: 1): [1]])
        #expect(await Self.view(harness, first, held)["remaining"] == 1)
        // Widgets: the same device token with a widget token in each app.
        let widgetToken = String(repeating: "cd", count: 32)
        try await harness.app.services.database.query("UPDATE subscriptions SET widget_push_token = \(widgetToken)")
        for app in [first, second] {
            let response = await NotificationRoutesTests.post(harness, ["app_id": .string(app.app.id), "push_type": "widgets",
                                                                        "included_segments": ["Subscribed Users"]],
                                                              restKey: app.restKey)
            #expect(response.status == 200)
            try await harness.drain()
        }
        #expect(harness.simulator.accepted().filter { $0.header("apns-push-type") == "widgets" }.count == 2)
    }

    // MARK: widget throttle

    /// A device gets one widget push at once; of the three that come within the interval,
    /// exactly one — the newest — goes when it ends, the others `throttled`, carried by it.
    @Test func widgetPushesWithinTheIntervalGiveOneTrailingPush() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        // A minute: the three reloads come within it however loaded the machine; its end is
        // brought forward by moving the device's slot back (`endWidgetInterval`), not waited for.
        try await Self.setIntervals(harness, app, widgets: 60)
        let widgetToken = String(repeating: "ab", count: 32)
        let subscription = try await harness.app.insertSubscription(appID: app.app.id, token: Self.updateToken(5))
        try await harness.app.services.database.query("UPDATE subscriptions SET widget_push_token = \(widgetToken) WHERE id = \(subscription)")
        func reload() async throws -> String {
            let response = await NotificationRoutesTests.post(harness, ["push_type": "widgets", "include_subscription_ids": [.string(subscription)]])
            try #require(response.status == 200, "\(response.text)")
            return try #require(response.json?.objectValue?["id"]?.stringValue)
        }
        func widgets() -> Int { harness.simulator.accepted().filter { $0.header("apns-push-type") == "widgets" }.count }
        let first = try await reload()
        try await harness.drain()
        #expect(widgets() == 1)
        var more: [String] = []
        for _ in 0..<3 {
            more.append(try await reload())
            try await harness.drain()
        }
        #expect(widgets() == 1)
        #expect(await Self.view(harness, app, more[0])["remaining"] == 1)
        try await Self.endIntervals(harness, seconds: 60)
        #expect(try await Self.drain(harness) { widgets() == 2 })
        // And no more after another interval: nothing is left to send.
        try await Self.endIntervals(harness, seconds: 60)
        try await harness.drain()
        #expect(widgets() == 2)
        let left: Int = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE app_id = \(app.app.id)
            """).firstRow().decode("n")
        #expect(left == 0)
        #expect(await Self.view(harness, app, first)["successful"] == 1)
        #expect(await Self.view(harness, app, more[2])["successful"] == 1)
        for throttled in more.dropLast() {
            #expect(try await Self.records(harness, throttled).map(\.reason) == ["throttled"])
            #expect(try await Self.records(harness, throttled).map(\.carriedBy) == [more[2]])
            let view = await Self.view(harness, app, throttled)
            #expect(Self.suppressed(view, .throttled) == 1 && view["remaining"] == 0 && view["successful"] == 0, "\(view)")
        }
    }

    // MARK: app fields

    @Test func theIntervalsAreAppFieldsWithDefaults() async throws {
        let app = try await AppsTestSupport.makeApp()
        let organization = AppsTestSupport.organization
        let created = try #require(await app.request(.post, "/apps", headers: organization, json: ["name": "A"]).json?.objectValue)
        #expect(created["live_activity_update_interval_seconds"] == 5 && created["widget_push_interval_seconds"] == 15)
        let id = try #require(created["id"]?.stringValue)
        let set = await app.request(.post, "/apps", headers: organization,
                                    json: ["name": "B", "live_activity_update_interval_seconds": 0, "widget_push_interval_seconds": 300])
        #expect(set.json?.objectValue?["live_activity_update_interval_seconds"] == 0)
        #expect(set.json?.objectValue?["widget_push_interval_seconds"] == 300)
        let updated = await app.request(.put, "/apps/\(id)", headers: organization, json: ["live_activity_update_interval_seconds": 60])
        #expect(updated.json?.objectValue?["live_activity_update_interval_seconds"] == 60)
        #expect(updated.json?.objectValue?["widget_push_interval_seconds"] == 15)
        let read = await app.request(.get, "/apps/\(id)", headers: organization)
        #expect(read.json?.objectValue?["live_activity_update_interval_seconds"] == 60)
        for (value, method): (JSONValue, HTTPMethod) in [(61, .post), (-1, .post), (1.5, .put), ("5", .put)] {
            let path = method == .post ? "/apps" : "/apps/\(id)"
            let bad = await app.request(method, path, headers: organization,
                                        json: ["name": "C", "live_activity_update_interval_seconds": value, "widget_push_interval_seconds": 301])
            #expect(bad.status == 400)
            #expect(bad.json == ["errors": ["live_activity_update_interval_seconds must be an integer from 0 to 60",
                                            "widget_push_interval_seconds must be an integer from 0 to 300"]])
        }
        let null = await app.request(.put, "/apps/\(id)", headers: organization, json: ["widget_push_interval_seconds": nil])
        #expect(null.json == ["errors": ["widget_push_interval_seconds cannot be null"]])
    }
}
