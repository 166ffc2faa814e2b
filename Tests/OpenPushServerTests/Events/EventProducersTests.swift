import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Every event type is appended with its data, in the transaction of the fact it reports
/// (the event's `xid` is the transaction that wrote the fact's row), driven through the real
/// routes and the delivery engine against the APNs simulator.
@Suite struct EventProducersTests {
    static let good = String(repeating: "c1", count: 32)
    static let bad = "bad0" + String(repeating: "c2", count: 30)
    static let dead = "dead" + String(repeating: "c3", count: 30)

    struct Event {
        var type: String
        var data: JSONObject
        /// The writing transaction's 32-bit xid, comparable with a row's `xmin`.
        var xid: Int64
    }

    /// The app's events as the feed and the webhooks have them (a job's compact row of delivery
    /// events expanded into its members), in order of their rows.
    static func events(_ harness: DeliveryHarness, _ type: String? = nil) async throws -> [Event] {
        let filter: PostgresQuery = type.map { "AND type = \($0)" } ?? ""
        let rows = try await harness.app.services.database.query("""
            SELECT \(StoredEvent.columns) FROM events WHERE app_id = \(harness.created.app.id) \(filter) ORDER BY seq
            """)
        return try StoredEvent.expand(rows, after: .start, limit: .max).map {
            Event(type: $0.type, data: $0.data, xid: $0.xid % 4_294_967_296)
        }
    }

    static func xmin(_ harness: DeliveryHarness, _ sql: PostgresQuery) async throws -> Int64 {
        try await harness.app.services.database.query("SELECT xmin::text::int8 AS x FROM \(sql)").firstRow().decode("x")
    }

    static func subscribe(_ harness: DeliveryHarness, _ events: [String]) async throws {
        let response = await harness.app.request(.post, "/apps/\(harness.created.app.id)/webhooks",
                                                 headers: .restKey(harness.created.restKey),
                                                 json: ["url": "http://127.0.0.1:9/hook", "events": .array(events.map(JSONValue.string))])
        #expect(response.status == 201, "\(response.text)")
    }

    static func send(_ harness: DeliveryHarness) async throws -> String {
        try await NotificationOpenedTests.send(harness)
    }

    @Test func deliveriesDeadTokensAndTheCompletedMessage() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await Self.subscribe(harness, ["delivery.accepted", "delivery.failed"])
        let good = try await harness.app.insertSubscription(appID: appID, token: Self.good)
        let bad = try await harness.app.insertSubscription(appID: appID, token: Self.bad)
        let messageID = try await Self.send(harness)
        try await harness.drain()

        let accepted = try await Self.events(harness, "delivery.accepted")
        let apnsID = try await harness.app.services.database.query(
            "SELECT \(DeliveryRecord.storedAPNSID)::text AS id FROM deliveries WHERE subscription_id = \(good)").firstRow().decode("id", as: String.self)
        #expect(accepted.map(\.data) == [["notification_id": .string(messageID), "subscription_id": .string(good),
                                          "token_kind": "device", "apns_id": .string(apnsID)]])
        let failed = try await Self.events(harness, "delivery.failed")
        #expect(failed.count == 1)
        #expect(failed.first?.data["subscription_id"] == .string(bad))
        #expect(failed.first?.data["reason"] == "BadDeviceToken")
        #expect(failed.first?.data["status"] == 400)
        // In the transaction that appended the records.
        #expect(accepted.first?.xid == (try await Self.xmin(harness, "delivery_batches WHERE \(good) = ANY(subscription_ids)")))

        let invalidated = try await Self.events(harness, "token.invalidated")
        #expect(invalidated.map(\.data) == [["subscription_id": .string(bad), "token_kind": "device", "reason": "BadDeviceToken"]])
        #expect(invalidated.first?.xid == (try await Self.xmin(harness, "subscriptions WHERE id = \(bad)")))

        let completed = try await Self.events(harness, "notification.completed")
        #expect(completed.count == 1)
        let data = try #require(completed.first?.data)
        #expect(data["notification_id"] == .string(messageID))
        #expect(data["successful"] == 1 && data["failed"] == 1 && data["errored"] == 0 && data["remaining"] == 0)
        #expect(data["suppressed"]?.objectValue != nil)
        let stamped = try await harness.app.services.database.query(
            "SELECT completed_event_at IS NOT NULL AS done FROM messages WHERE id = \(messageID)").firstRow()
        #expect(try stamped.decode("done", as: Bool.self))

        // Clicks: the first tap is `first`, the next is not.
        #expect(await NotificationOpenedTests.tap(harness, messageID, token: Self.good).status == 200)
        #expect(await NotificationOpenedTests.tap(harness, messageID, token: Self.good).status == 200)
        let clicks = try await Self.events(harness, "click")
        #expect(clicks.map(\.data) == [
            ["notification_id": .string(messageID), "subscription_id": .string(good), "first": true],
            ["notification_id": .string(messageID), "subscription_id": .string(good), "first": false],
        ])
    }

    /// The feed serves backends that take no inbound HTTP: an app without any endpoint still
    /// finds its delivery events there.
    @Test func withoutAnEndpointTheFeedStillHasTheDeliveryEvents() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let good = try await harness.app.insertSubscription(appID: appID, token: Self.good)
        let bad = try await harness.app.insertSubscription(appID: appID, token: Self.bad)
        let messageID = try await Self.send(harness)
        try await harness.drain()
        let feed = try await EventFeedTests.feed(harness.app, harness.created, count: 4).events
        #expect(feed.map { $0["type"]?.stringValue } == ["delivery.accepted", "delivery.failed", "token.invalidated",
                                                          "notification.completed"])
        #expect(feed[0]["data"]?.objectValue?["subscription_id"] == .string(good))
        #expect(feed[0]["data"]?.objectValue?["notification_id"] == .string(messageID))
        #expect(feed[1]["data"]?.objectValue?["subscription_id"] == .string(bad))
        #expect(feed[1]["data"]?.objectValue?["reason"] == "BadDeviceToken")
    }

    @Test func manyJobsCompleteTheMessageExactlyOnce() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.jobSize = 2
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        for index in 0..<9 {
            _ = try await harness.app.insertSubscription(appID: appID, token: String(repeating: "d\(index)", count: 32))
        }
        let messageID = try await Self.send(harness)
        // Several loops at once race for the last jobs.
        async let a = harness.drain()
        async let b = harness.drain()
        async let c = harness.drain()
        _ = try await (a, b, c)
        try await harness.drain()
        let completed = try await Self.events(harness, "notification.completed")
        #expect(completed.count == 1)
        #expect(completed.first?.data["notification_id"] == .string(messageID))
        #expect(completed.first?.data["successful"] == 9)
    }

    @Test func aCancelFinishesTheMessage() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.good)
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey), json: [
            "app_id": .string(appID), "included_segments": ["Subscribed Users"], "contents": ["en": "Later"],
            "send_after": .double(harness.app.services.now() + 3600),
        ])
        let messageID = try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
        let cancelled = await harness.app.request(.delete, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                                  query: ["app_id": appID])
        #expect(cancelled.status == 200, "\(cancelled.text)")
        let completed = try await Self.events(harness, "notification.completed")
        #expect(completed.count == 1)
        #expect(completed.first?.data["canceled"] == true)
        #expect(completed.first?.xid == (try await Self.xmin(harness, "messages WHERE id = \(messageID)")))
    }

    @Test func liveActivityRegistrationsEndsAndClicks() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let sdk = HTTPHeaders.sdkKey(harness.created.sdkKey)
        let device = try await harness.app.insertSubscription(appID: appID, token: Self.good)
        func register(_ activityID: String, token: String) async {
            let response = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities", headers: sdk, json: [
                "token": .string(Self.good), "activity_id": .string(activityID), "activity_type": "Score",
                "update_token": .string(token)])
            #expect(response.status == 200, "\(response.text)")
        }
        await register("game-1", token: String(repeating: "e1", count: 32))
        await register("game-1", token: String(repeating: "e2", count: 32))
        let registered = try await Self.events(harness, "live_activity.registered")
        #expect(registered.map(\.data) == [
            ["activity_id": "game-1", "activity_type": "Score", "subscription_id": .string(device), "created": true],
            ["activity_id": "game-1", "activity_type": "Score", "subscription_id": .string(device), "created": false],
        ])
        #expect(registered.last?.xid == (try await Self.xmin(harness, "live_activities WHERE activity_id = 'game-1'")))

        // A push to the activity, then a tap on it.
        try await harness.app.services.database.query("UPDATE apps SET live_activity_update_interval_seconds = 0 WHERE id = \(appID)")
        let update = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-1/notifications",
                                               headers: .restKey(harness.created.restKey),
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 1]])
        let messageID = try #require(update.json?.objectValue?["id"]?.stringValue ?? update.json?.objectValue?["notification_id"]?.stringValue,
                                     "\(update.text)")
        try await harness.drain()
        let clicked = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities/game-1/click", headers: sdk,
                                                json: ["token": .string(Self.good)])
        #expect(clicked.status == 200, "\(clicked.text)")
        #expect(try await Self.events(harness, "click").map(\.data) == [
            ["notification_id": .string(messageID), "subscription_id": .string(device), "activity_id": "game-1", "first": true],
        ])

        // Ended by the device.
        let ended = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities/game-1/end", headers: sdk,
                                              json: ["token": .string(Self.good)])
        #expect(ended.status == 200)
        // Ended remotely.
        await register("game-2", token: String(repeating: "e3", count: 32))
        let end = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-2/notifications",
                                            headers: .restKey(harness.created.restKey),
                                            json: ["event": "end", "name": "n", "event_updates": ["home": 2]])
        #expect(end.status == 201, "\(end.text)")
        try await harness.drain()
        // A dead update token.
        await register("game-3", token: Self.dead)
        let toDead = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-3/notifications",
                                               headers: .restKey(harness.created.restKey),
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 3]])
        #expect(toDead.status == 201, "\(toDead.text)")
        try await harness.drain()
        // Retired with the device.
        await register("game-4", token: String(repeating: "e4", count: 32))
        let retired = await harness.app.request(.post, "/v1/apps/\(appID)/subscriptions/retire", headers: sdk,
                                                json: ["token": .string(Self.good)])
        #expect(retired.status == 200, "\(retired.text)")

        let endings = try await Self.events(harness, "live_activity.ended").map(\.data)
        #expect(endings == [
            ["activity_id": "game-1", "subscription_id": .string(device), "cause": "device"],
            ["activity_id": "game-2", "subscription_id": .string(device), "cause": "remote"],
            ["activity_id": "game-3", "subscription_id": .string(device), "cause": "dead_token"],
            ["activity_id": "game-4", "subscription_id": .string(device), "cause": "retired"],
        ])
        let invalidated = try await Self.events(harness, "token.invalidated").map(\.data)
        #expect(invalidated == [["subscription_id": .string(device), "token_kind": "update", "reason": "Unregistered",
                                 "activity_id": "game-3"]])
        // Ending an ended activity again tells nothing new.
        let again = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities/game-1/end", headers: sdk,
                                              json: ["token": .string(Self.good)])
        _ = again
        #expect(try await Self.events(harness, "live_activity.ended").count == 4)
    }

    @Test func aDeadPushToStartTokenIsInvalidated() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let device = try await DeliveryEngineTests.startableDevice(harness, token: Self.good, pts: Self.dead)
        #expect(await DeliveryEngineTests.start(harness).status == 201)
        try await harness.drain()
        #expect(try await Self.events(harness, "token.invalidated").map(\.data) == [
            ["subscription_id": .string(device), "token_kind": "push_to_start", "reason": "Unregistered"],
        ])
    }
}
