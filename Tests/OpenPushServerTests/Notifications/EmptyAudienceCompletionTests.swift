import Foundation
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// `notification.completed` for a message whose audience turns out empty: every send that hands
/// out a message id and then reaches nobody emits exactly one, with the counts
/// `GET /notifications/{id}` shows, read from the public feed. A send refused for an empty
/// audience returns no id and emits nothing.
@Suite struct EmptyAudienceCompletionTests {
    static let token = String(repeating: "a7", count: 32)

    /// The app's `notification.completed` events from `GET /apps/{app_id}/events`, once at least
    /// `expecting` are visible (an event shows once every older transaction in the cluster ended).
    static func completed(_ harness: DeliveryHarness, expecting count: Int = 1,
                          timeout: Duration = .seconds(120)) async throws -> [JSONObject] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let response = await harness.app.request(.get, "/apps/\(harness.created.app.id)/events",
                                                     headers: .restKey(harness.created.restKey),
                                                     query: ["types": "notification.completed"])
            try #require(response.status == 200, "\(response.text)")
            let events = (response.json?.objectValue?["events"]?.arrayValue ?? []).compactMap(\.objectValue)
            if events.count >= count || ContinuousClock.now > deadline {
                return events.compactMap { $0["data"]?.objectValue }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func view(_ harness: DeliveryHarness, _ id: String) async throws -> JSONObject {
        let response = await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                                 query: ["app_id": harness.created.app.id])
        return try #require(response.json?.objectValue, "\(response.text)")
    }

    /// Exactly one completion, for `id`, carrying the view's counts, and the view final with nobody reached.
    static func expectOneCompletion(_ harness: DeliveryHarness, _ id: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await harness.drain()
        let events = try await completed(harness)
        #expect(events.count == 1, "\(events)", sourceLocation: sourceLocation)
        let data = try #require(events.first, sourceLocation: sourceLocation)
        let view = try await view(harness, id)
        #expect(data == EventData.notificationCompleted(view: view), sourceLocation: sourceLocation)
        #expect(data["notification_id"] == .string(id), sourceLocation: sourceLocation)
        #expect(data["successful"] == 0 && data["failed"] == 0 && data["remaining"] == 0, "\(data)",
                sourceLocation: sourceLocation)
        #expect(data["completed_at"] != .null, "\(data)", sourceLocation: sourceLocation)
    }

    static func retire(_ harness: DeliveryHarness, token: String = token) async throws {
        let response = await harness.app.request(.post, "/v1/apps/\(harness.created.app.id)/subscriptions/retire",
                                                 headers: .sdkKey(harness.created.sdkKey), json: ["token": .string(token)])
        try #require(response.status == 200, "retire: \(response.text)")
    }

    static func post(_ harness: DeliveryHarness, _ body: JSONObject) async throws -> String {
        var body = body
        body["app_id"] = .string(harness.created.app.id)
        body["contents"] = body["contents"] ?? ["en": "Hello"]
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey),
                                                 json: .object(body))
        let id = try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
        try #require(!id.isEmpty, "\(response.text)")
        return id
    }

    @Test func aSegmentSendWhoseDevicesLeftBeforeExpansionCompletesOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token)
        let id = try await Self.post(harness, ["included_segments": ["Subscribed Users"]])
        try await Self.retire(harness)
        try await Self.expectOneCompletion(harness, id)
        // Nothing more comes of it.
        try await harness.drain()
        #expect(try await Self.completed(harness, expecting: 2, timeout: .seconds(1)).count == 1)
    }

    /// Throttled, so a worker expands it, after the device left (an immediate send queues its
    /// devices with it: `directTargetsThatLeftAfterAnImmediateSendCompleteOnce`).
    @Test func directTargetsThatLeftCompleteOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token)
        let id = try await Self.post(harness, ["include_subscription_ids": [.string(subscription)], "throttle_rate_per_minute": 600])
        try await Self.retire(harness)
        try await Self.expectOneCompletion(harness, id)
    }

    /// An immediate send's device is queued when the API answers (`ImmediateExpansion`): one
    /// that leaves before its push is recorded as unsubscribed, and the message completes once.
    @Test func directTargetsThatLeftAfterAnImmediateSendCompleteOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token)
        let id = try await Self.post(harness, ["include_subscription_ids": [.string(subscription)]])
        try await Self.retire(harness)
        try await harness.drain()
        let events = try await Self.completed(harness)
        #expect(events.count == 1, "\(events)")
        let data = try #require(events.first)
        #expect(data == EventData.notificationCompleted(view: try await Self.view(harness, id)))
        #expect(data["successful"] == 0 && data["failed"] == 1 && data["remaining"] == 0, "\(data)")
        #expect(data["errors_by_reason"] == ["Unsubscribed": 1], "\(data)")
        #expect(harness.simulator.accepted().isEmpty)
    }

    @Test func aTemplateSendThatFindsNobodyCompletesOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token)
        let template = try await NotificationTemplatesTests.createTemplate(harness, NotificationTemplatesTests.template)
        // Throttled: a worker expands it, after the device left.
        let id = try await Self.post(harness, ["template_id": .string(template), "include_subscription_ids": [.string(subscription)],
                                               "contents": nil, "throttle_rate_per_minute": 600])
        try await Self.retire(harness)
        try await Self.expectOneCompletion(harness, id)
    }

    @Test func aScheduledSendThatFindsNobodyWhenDueCompletesThen() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token)
        let id = try await Self.post(harness, ["included_segments": ["Subscribed Users"],
                                               "send_after": .double(harness.app.services.now() + 3600)])
        try await Self.retire(harness)
        // Not due yet: not final, no event.
        try await harness.drain()
        #expect(try await Self.view(harness, id)["completed_at"] == .null)
        #expect(try await Self.completed(harness, expecting: 0, timeout: .zero).isEmpty)
        // Its time comes (moved in the row rather than waited for, so a slow machine cannot pass it early).
        try await harness.app.services.database.query("UPDATE messages SET send_after = now() WHERE id = \(id)")
        try await Self.expectOneCompletion(harness, id)
    }

    /// Live Activity sends count their audience and queue it in one statement, and an empty one
    /// is refused with no id; should the queueing still write no job for an audience it counted,
    /// the message must end at once, since no job will. A trigger dropping the job rows stands in
    /// for that here.
    static func dropQueuedJobs(_ harness: DeliveryHarness) async throws {
        try await harness.app.services.database.query("""
            CREATE FUNCTION test_drop_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$
            """)
        try await harness.app.services.database.query("""
            CREATE TRIGGER test_drop_jobs BEFORE INSERT ON delivery_jobs FOR EACH ROW EXECUTE FUNCTION test_drop_job()
            """)
    }

    @Test func aLiveActivityStartWhoseAudienceEmptiedBeforeQueueingCompletesOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await DeliveryEngineTests.startableDevice(harness, token: Self.token, pts: String(repeating: "b7", count: 32))
        try await Self.dropQueuedJobs(harness)
        let response = await DeliveryEngineTests.start(harness)
        #expect(response.status == 201, "\(response.text)")
        #expect(response.headers["OpenPush-Audience-Sent"] == "0")
        let id = try #require(response.json?.objectValue?["notification_id"]?.stringValue)
        try await Self.expectOneCompletion(harness, id)
    }

    @Test(arguments: ["update", "end"])
    func aLiveActivityUpdateOrEndWhoseAudienceEmptiedBeforeQueueingCompletesOnce(_ event: String) async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.token)
        try await harness.app.services.database.query("UPDATE apps SET live_activity_update_interval_seconds = 0 WHERE id = \(appID)")
        let registered = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities", headers: .sdkKey(harness.created.sdkKey),
                                                   json: ["token": .string(Self.token), "activity_id": "game-1", "activity_type": "Score",
                                                          "update_token": .string(String(repeating: "e7", count: 32))])
        #expect(registered.status == 200, "\(registered.text)")
        try await Self.dropQueuedJobs(harness)
        let response = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-1/notifications",
                                                 headers: .restKey(harness.created.restKey),
                                                 json: ["event": .string(event), "name": "n", "event_updates": ["home": 1]])
        #expect(response.status == 201, "\(response.text)")
        let id = try #require(response.json?.objectValue?["id"]?.stringValue)
        try await Self.expectOneCompletion(harness, id)
    }

    @Test func sendsRefusedForAnEmptyAudienceReturnNoIDAndEmitNothing() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let rest = HTTPHeaders.restKey(harness.created.restKey)
        let subscription = try await harness.app.insertSubscription(appID: appID, token: Self.token)
        try await Self.retire(harness)
        // Notifications: OneSignal's 200 with an empty id.
        for audience: JSONObject in [["include_subscription_ids": [.string(subscription)]], ["included_segments": ["Subscribed Users"]]] {
            var body = audience
            body["app_id"] = .string(appID)
            body["contents"] = ["en": "Hello"]
            let response = await harness.app.request(.post, "/notifications", headers: rest, json: .object(body))
            #expect(response.json?.objectValue?["id"] == "", "\(response.text)")
        }
        // Live Activities: refused outright.
        #expect(await DeliveryEngineTests.start(harness).status == 400)
        let update = await harness.app.request(.post, "/apps/\(appID)/live_activities/nobody/notifications", headers: rest,
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 1]])
        #expect(update.status == 404, "\(update.text)")
        try await harness.drain()
        // A marker committed after all of them: once it is visible, so would they be.
        try await harness.app.services.database.transaction {
            try EventOutbox.append([OutboundEvent(type: .click, appID: appID, data: [:])], in: $0)
        }
        let deadline = ContinuousClock.now + .seconds(120)
        var types: [String] = []
        while types.isEmpty, ContinuousClock.now < deadline {
            let feed = await harness.app.request(.get, "/apps/\(appID)/events", headers: rest)
            types = (feed.json?.objectValue?["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["type"]?.stringValue }
            if types.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(types == ["click"])
        let messages: Int = try await harness.app.services.database.query(
            "SELECT count(*)::int AS n FROM messages WHERE app_id = \(appID)").firstRow().decode("n")
        #expect(messages == 0)
    }
}
