import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /notifications`, `GET /notifications`, `DELETE /notifications/{id}` end to end against
/// the APNs simulator: what goes on the wire for each push type, idempotency, cancel, paging.
@Suite struct NotificationRoutesTests {
    static func token(_ index: Int) -> String { String(format: "%064x", index + 1) }

    static func post(_ harness: DeliveryHarness, _ body: JSONObject, key: String? = nil, restKey: String? = nil) async -> TestResponse {
        var object: JSONObject = ["app_id": .string(harness.created.app.id)]
        for (name, value) in body { object[name] = value }
        var headers = HTTPHeaders.restKey(restKey ?? harness.created.restKey)
        if let key { headers.add(name: "Idempotency-Key", value: key) }
        return await harness.app.request(.post, "/notifications", headers: headers, json: .object(object))
    }

    static func count(_ harness: DeliveryHarness, _ sql: PostgresQuery) async throws -> Int {
        try await harness.app.services.database.query(sql).firstRow().decode("n")
    }

    /// `n` devices inserted in one statement.
    static func seed(_ harness: DeliveryHarness, _ n: Int) async throws {
        try await harness.app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || lpad(g::text, 8, '0'), \(harness.created.app.id), lpad(to_hex(g), 64, '0'), now(), now()
            FROM generate_series(1, \(n)) AS g
            """)
    }

    @Test func anAlertReachesAPNsWithItsHeadersAndPayload() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token(0))
        try await harness.app.services.database.query("""
            UPDATE subscriptions SET tags = '{"first_name": "Ana"}'::jsonb, badge_count = 2 WHERE id = \(subscription)
            """)
        let posted = Int(Date().timeIntervalSince1970)
        let response = await Self.post(harness, [
            "include_subscription_ids": [.string(subscription)], "headings": ["en": "Hi {{ first_name }}"],
            "contents": ["en": "Body"], "collapse_id": "c1", "ios_badgeType": "Increase", "ios_badgeCount": 1,
            "data": ["order": 7], "ttl": 60,
        ])
        #expect(response.status == 200)
        let id = try #require(response.json?.objectValue?["id"]?.stringValue)
        #expect(id.hasPrefix("msg_"))
        try await harness.drain()
        let push = try #require(harness.simulator.accepted().first)
        #expect(push.deviceToken == Self.token(0))
        #expect(push.header("apns-push-type") == "alert")
        #expect(push.header("apns-topic") == DeliveryHarness.bundleID)
        #expect(push.header("apns-priority") == "10")
        #expect(push.header("apns-collapse-id") == "c1")
        let expiration = Int(push.header("apns-expiration") ?? "") ?? 0
        // The ttl counts from the enqueue: between the POST and now (however slow the machine), plus 60 s.
        #expect((posted + 59)...(Int(Date().timeIntervalSince1970) + 60) ~= expiration)
        #expect(push.payloadJSON == ["aps": ["alert": ["title": "Hi Ana", "body": "Body"], "badge": 3], "order": 7])
        let view = await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": harness.created.app.id])
        #expect(view.json?.objectValue?["successful"] == 1)
        #expect(view.json?.objectValue?["message_kind"] == "notification")
        #expect(view.json?.objectValue?["kind"] == nil, "OneSignal's `kind` is null or \"warmup\"; its clients refuse others")
    }

    @Test func backgroundAndWidgetPushes() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token(0))
        let widgetToken = String(repeating: "ab", count: 32)
        try await harness.app.services.database.query("""
            UPDATE subscriptions SET widget_push_token = \(widgetToken) WHERE id = \(subscription)
            """)
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token(1))
        #expect(await Self.post(harness, ["included_segments": ["Subscribed Users"], "content_available": true,
                                          "data": ["event": "task.updated"]]).status == 200)
        try await harness.drain()
        let silent = harness.simulator.accepted()
        #expect(silent.count == 2)
        #expect(silent.allSatisfy { $0.header("apns-push-type") == "background" && $0.header("apns-priority") == "5" })
        #expect(silent.first?.payloadJSON == ["aps": ["content-available": 1], "event": "task.updated"])

        #expect(await Self.post(harness, ["included_segments": ["Subscribed Users"], "push_type": "widgets"]).status == 200)
        try await harness.drain()
        let widgets = harness.simulator.accepted().filter { $0.header("apns-push-type") == "widgets" }
        #expect(widgets.map(\.deviceToken) == [widgetToken])
        #expect(widgets.first?.header("apns-topic") == DeliveryHarness.bundleID + ".push-type.widgets")
        #expect(widgets.first?.payloadJSON == ["aps": ["content-changed": true]])
    }

    @Test func aRegisteredWidgetPushTokenGetsWidgetReloads() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let widgetToken = String(repeating: "cd", count: 32)
        let registered = await harness.app.request(.post, "/v1/apps/\(harness.created.app.id)/subscriptions",
                                                   headers: .sdkKey(harness.created.sdkKey),
                                                   json: ["token": .string(Self.token(0)), "widget_push_token": .string(widgetToken)])
        #expect(registered.status == 200 || registered.status == 201)
        #expect(await Self.post(harness, ["included_segments": ["Subscribed Users"], "push_type": "widgets"]).status == 200)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [widgetToken])
    }

    @Test func deadTokensAreSkippedAndNobodyIsOneSignalsShape() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let dead = try await harness.app.insertSubscription(appID: harness.created.app.id,
                                                            token: "dead" + String(repeating: "0", count: 60))
        let body: JSONObject = ["include_subscription_ids": [.string(dead)], "contents": ["en": "x"]]
        #expect(await Self.post(harness, body).status == 200)
        try await harness.drain()
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM subscriptions WHERE token_invalid_at IS NOT NULL") == 1)
        let second = await Self.post(harness, body)
        #expect(second.status == 200)
        #expect(second.json == ["id": "", "errors": ["All included players are not subscribed"]])
    }

    @Test func validationNamesEveryBadFieldAndKeysStayInTheirApp() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let bad = await Self.post(harness, ["contents": ["en": "x"], "ios_sound": 3, "colour": "red"])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["ios_sound must be a string, got number", "use exactly one targeting method",
                                        "unknown field 'colour'"]])
        let other = try await harness.app.createApp()
        let foreign = await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]],
                                      restKey: other.restKey)
        #expect([401, 403, 404].contains(foreign.status))
        let list = await harness.app.request(.get, "/notifications", headers: .restKey(other.restKey),
                                             query: ["app_id": harness.created.app.id])
        #expect([401, 403, 404].contains(list.status))
    }

    @Test func idempotencyReplaysConflictsAndRaces() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token(0))
        let body: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "once"]]
        let first = await Self.post(harness, body, key: "k-1")
        let again = await Self.post(harness, body, key: "k-1")
        #expect(first.status == 200)
        #expect(again.json == first.json)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        let conflict = await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "other"]], key: "k-1")
        #expect(conflict.status == 409)
        let racing = await withTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<8 { group.addTask { await Self.post(harness, body, key: "k-2") } }
            return await group.reduce(into: [TestResponse]()) { $0.append($1) }
        }
        #expect(Set(racing.compactMap { $0.json?.objectValue?["id"]?.stringValue }).count == 1)
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM messages") == 2)
        try await harness.drain()
        #expect(harness.simulator.accepted().count == 2)
    }

    @Test func cancelStopsAFanOutMidway() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.expansionPageSize = 100
        settings.jobSize = 50
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 1000)
        let id = try #require(await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]])
            .json?.objectValue?["id"]?.stringValue)
        // Turn 1 finds no job and expands a page (two jobs); turn 2 leases one, expands the
        // second page and sends its 50.
        try await harness.engine.runOnce()
        try await harness.engine.runOnce()
        let cancel = await harness.app.request(.delete, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                               query: ["app_id": harness.created.app.id])
        #expect(cancel.json == ["success": true])
        try await harness.drain()
        let accepted = harness.simulator.accepted().count
        #expect(accepted == 50)
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries") == 200)
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries WHERE state = 'cancelled'") == 150)
        let missing = await harness.app.request(.delete, "/notifications/msg_nope", headers: .restKey(harness.created.restKey),
                                                query: ["app_id": harness.created.app.id])
        #expect(missing.status == 404)
    }

    @Test func scheduledNotificationsWaitAndListsPage() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token(0))
        let later = Date().timeIntervalSince1970 + 3600
        for text in ["a", "b", "c"] {
            _ = await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": .string(text)],
                                          "send_after": .double(later)])
        }
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries") == 0)
        let list = await harness.app.request(.get, "/notifications", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": harness.created.app.id, "limit": "2", "offset": "1"])
        #expect(list.status == 200)
        let object = try #require(list.json?.objectValue)
        #expect(object["total_count"] == 3)
        #expect(object["limit"] == 2)
        #expect(object["offset"] == 1)
        #expect(object["notifications"]?.arrayValue?.count == 2)
    }

    /// OneSignal's clients send `send_after` as a date string; the view answers unix seconds.
    @Test func sendAfterTakesAnISODateAndRefusesOtherText() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token(0))
        let response = await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "later"],
                                                 "send_after": "2099-01-01T02:00:00+02:00"])
        #expect(response.status == 200)
        let id = try #require(response.json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        let view = await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": harness.created.app.id])
        #expect(view.status == 200)
        #expect(view.json?.objectValue?["send_after"] == 4_070_908_800)  // 2099-01-01T00:00:00Z

        let refused = await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "later"],
                                                "send_after": "next tuesday"])
        #expect(refused.status == 400)
        #expect(refused.json == ["errors": [.string(SendAfterDate.message)]])
    }

    @Test func aFanOutOf20000IsExpandedInPagesWithOneRowPerDevice() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.jobSize = 2000
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 20_000)
        let response = await Self.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "all"]])
        #expect(response.status == 200)
        try await harness.drain()
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries") == 20_000)
        #expect(try await Self.count(harness, "SELECT count(DISTINCT subscription_id)::int AS n FROM deliveries") == 20_000)
        #expect(try await Self.count(harness, "SELECT count(*)::int AS n FROM deliveries WHERE state = 'accepted'") == 20_000)
        #expect(try await Self.count(harness, "SELECT audience_total AS n FROM messages") == 20_000)
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)).count == 20_000)
    }
}

/// `GET /notifications/{id}` in OneSignal's shape: its per-platform figures and the request's own
/// targeting and data echoed back.
@Suite struct NotificationViewShapeTests {
    @Test func theViewCarriesOneSignalsFields() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: NotificationRoutesTests.token(0))
        let sent = await NotificationRoutesTests.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"],
                                                                "data": ["order": "42"]])
        let id = try #require(sent.json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        let view = try #require(await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                                          query: ["app_id": harness.created.app.id]).json?.objectValue)
        #expect(view["platform_delivery_stats"] == ["ios": ["successful": 1, "failed": 0, "errored": 0, "converted": 0]])
        #expect(view["data"] == ["order": "42"])
        #expect(view["included_segments"] == ["Subscribed Users"])
        // OneSignal's schema has the segment lists as arrays, never null: its clients refuse a null there.
        #expect(view["excluded_segments"] == [])
        for absent in ["include_aliases", "template_id", "throttle_rate_per_minute", "delayed_option", "delivery_time_of_day"] {
            #expect(view[absent] == .null, "\(absent)")
        }
    }

    @Test func segmentListsAreEmptyWhenTheRequestHadNone() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id,
                                                                    token: NotificationRoutesTests.token(0))
        let sent = await NotificationRoutesTests.post(harness, ["include_subscription_ids": [.string(subscription)],
                                                                "contents": ["en": "x"]])
        let id = try #require(sent.json?.objectValue?["id"]?.stringValue)
        let view = try #require(await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                                          query: ["app_id": harness.created.app.id]).json?.objectValue)
        #expect(view["included_segments"] == [])
        #expect(view["excluded_segments"] == [])
    }

    /// `completed_at` stays null until the message has gone out: a scheduled one has recipients to come.
    @Test func aScheduledMessageIsNotComplete() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: NotificationRoutesTests.token(0))
        let sent = await NotificationRoutesTests.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"],
                                                                "send_after": .double(Date().timeIntervalSince1970 + 3600)])
        let id = try #require(sent.json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        let view = try #require(await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                                          query: ["app_id": harness.created.app.id]).json?.objectValue)
        #expect(view["completed_at"] == .null)
        #expect(view["remaining"] == 0)
        #expect(view["canceled"] == false)
    }
}
