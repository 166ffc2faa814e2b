import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /notifications` with OneSignal's Apple fields, end to end through the simulator, and
/// the body's `idempotency_key` / `external_id`: replay, conflict, races, 30 days, callers.
@Suite struct NotificationAppleFieldsRoutesTests {
    typealias Routes = NotificationRoutesTests
    static let key = "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81"

    static func messages(_ harness: DeliveryHarness) async throws -> Int {
        try await Routes.count(harness, "SELECT count(*)::int AS n FROM messages")
    }

    @Test func theAppleFieldsReachTheDeviceAsOneSignalsSDKReadsThem() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let response = await Routes.post(harness, [
            "included_segments": ["Subscribed Users"], "headings": ["en": "Shipped"], "contents": ["en": "Your box is on its way"],
            "url": "https://shop.example/o/1", "app_url": "shop://o/1", "web_url": "https://shop.example/web",
            "ios_attachments": ["box": "https://cdn.example/box.jpg"],
            "buttons": [["id": "track", "text": "Track", "icon": "ic_track"]],
            "apns_alert": ["launch-image": "Splash"], "thread_id": "orders", "summary_arg": "Shop",
            "apns_push_type_override": "alert", "target_content_identifier": "orders-scene", "name": "shipping",
        ])
        #expect(response.status == 200, "\(response.text)")
        // web_url is a browser's field now: honoured for browsers, so not listed as ignored.
        #expect(response.headers["OpenPush-Ignored-Fields"] == nil)
        let id = try #require(response.json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        let push = try #require(harness.simulator.accepted().first)
        let expected = try JSONValue.parse("""
            {
              "aps": {
                "alert": { "launch-image": "Splash", "title": "Shipped", "body": "Your box is on its way", "summary-arg": "Shop" },
                "thread-id": "orders", "mutable-content": 1, "target-content-id": "orders-scene"
              },
              "os_data": {
                "i": "\(id)", "u": "shop://o/1", "att": { "box": "https://cdn.example/box.jpg" },
                "buttons": [ { "i": "track", "n": "Track" } ]
              }
            }
            """)
        #expect(push.payloadJSON == expected)
        // The stored send carries them, so a worker needs nothing else.
        let stored = try await harness.app.services.database.query("SELECT send::text AS send FROM messages WHERE id = \(id)").firstRow()
        let send = try StoredSend.decodeNotification(try JSONValue.parse(try stored.decode("send", as: String.self)))
        #expect(send.launchURL == "shop://o/1" && send.buttons == [NotificationButton(id: "track", text: "Track", icon: "ic_track")])
    }

    @Test func badAppleFieldsAreOne400NamingEach() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let response = await Routes.post(harness, [
            "included_segments": ["Subscribed Users"], "contents": ["en": "x"], "url": "not a url",
            "buttons": [["id": "a"]], "apns_alert": ["body": "b"], "apns_push_type_override": "liveactivity", "idempotency_key": "k",
        ])
        #expect(response.status == 400)
        #expect(response.json == ["errors": [
            .string("url " + NotificationSendParser.AppleMessages.url), "buttons[0].text is required",
            "apns_alert.body: give this text in contents", .string(NotificationSendParser.PushTypeMessages.unknown),
            .string(NotificationSendParser.AppleMessages.idempotencyKeyUUID),
        ]])
        let silent = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "content_available": true,
                                                 "ios_attachments": ["a": "b.png"]])
        #expect(silent.json == ["errors": [.string(NotificationSendParser.AppleMessages.backgroundShowsNothing + "ios_attachments")]])
        #expect(try await Self.messages(harness) == 0)
    }

    // MARK: the body's idempotency key

    @Test func theBodysKeyReplaysTheFirstAnswerAndConflictsOnAnotherBody() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let body: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "once"],
                                "idempotency_key": .string(Self.key)]
        let first = await Routes.post(harness, body)
        let again = await Routes.post(harness, body)
        #expect(first.status == 200)
        #expect(again.json == first.json)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        var other = body
        other["contents"] = ["en": "other"]
        let conflict = await Routes.post(harness, other)
        #expect(conflict.status == 409)
        #expect(conflict.json == ["errors": [.string(NotificationRoutes.idempotencyConflict)]])
        // OneSignal's older name for the same key, in its own body.
        let older: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "legacy"],
                                 "external_id": "1b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81"]
        let legacy = await Routes.post(harness, older)
        #expect(await Routes.post(harness, older).json == legacy.json)
        try await harness.drain()
        #expect(harness.simulator.accepted().count == 2)
        #expect(try await Self.messages(harness) == 2)
    }

    @Test func theBodysKeyIsKeptThirtyDaysTheHeadersOneDay() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let bodyKeyed: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "a"],
                                     "idempotency_key": .string(Self.key)]
        let headerKeyed: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "b"]]
        let first = await Routes.post(harness, bodyKeyed)
        let firstHeader = await Routes.post(harness, headerKeyed, key: "header-1")
        try await harness.app.services.database.query("UPDATE idempotency_keys SET created_at = created_at - interval '29 days'")
        #expect(await Routes.post(harness, bodyKeyed).json == first.json)
        let resent = await Routes.post(harness, headerKeyed, key: "header-1")
        #expect(resent.headers["Idempotent-Replayed"] == nil)
        #expect(resent.json != firstHeader.json)
        try await harness.app.services.database.query("UPDATE idempotency_keys SET created_at = created_at - interval '2 days'")
        #expect(await Routes.post(harness, bodyKeyed).json != first.json)
    }

    @Test func headerAndBodyKeysMustAgree() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let body: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "x"],
                                "idempotency_key": .string(Self.key)]
        let different = await Routes.post(harness, body, key: "something-else")
        #expect(different.status == 400)
        #expect(different.json == ["errors": [.string(NotificationRoutes.twoIdempotencyKeys)]])
        let same = await Routes.post(harness, body, key: Self.key.uppercased())
        #expect(same.status == 200)
        #expect(await Routes.post(harness, body).json == same.json)
        #expect(try await Self.messages(harness) == 1)
    }

    @Test func concurrentRepeatsOfABodyKeySendOneMessage() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let body: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "race"],
                                "idempotency_key": .string(Self.key)]
        let racing = await withTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<8 { group.addTask { await Routes.post(harness, body) } }
            return await group.reduce(into: [TestResponse]()) { $0.append($1) }
        }
        #expect(racing.allSatisfy { $0.status == 200 })
        #expect(Set(racing.compactMap { $0.json?.objectValue?["id"]?.stringValue }).count == 1)
        #expect(racing.filter { $0.headers["Idempotent-Replayed"] == "true" }.count == 7)
        #expect(try await Self.messages(harness) == 1)
        try await harness.drain()
        #expect(harness.simulator.accepted().count == 1)
    }

    @Test func anotherAppsSameKeyIsItsOwn() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await StoredSendDeliveryTests.other(harness)
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        try await harness.app.insertSubscription(appID: other.app.id, token: Routes.token(1))
        let body: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "mine"],
                                "idempotency_key": .string(Self.key)]
        let mine = await Routes.post(harness, body)
        var theirs = body
        theirs["app_id"] = .string(other.app.id)
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(other.restKey), json: .object(theirs))
        #expect(response.status == 200)
        #expect(response.headers["Idempotent-Replayed"] == nil)
        #expect(response.json != mine.json)
        // Another app's key cannot send as this app, key or not.
        let crossed = await harness.app.request(.post, "/notifications", headers: .restKey(other.restKey),
                                                json: .object(body.merging(["app_id": .string(harness.created.app.id)])))
        #expect([401, 403, 404].contains(crossed.status))
        #expect(try await Self.messages(harness) == 2)
    }
}

extension JSONObject {
    func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other { merged[key] = value }
        return merged
    }
}
