import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `messages.send`: the send routes store the validated send in its canonical form with the
/// message, the workers build from it (never from the request), a stored send that does not
/// decode fails its own message only, and rows written before the column still go out.
@Suite struct StoredSendDeliveryTests {
    static let tokenA = "a1" + String(repeating: "0", count: 62)
    static let tokenB = "b1" + String(repeating: "0", count: 62)

    static func other(_ harness: DeliveryHarness) async throws -> CreatedApp {
        try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                    apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
    }

    static func notify(_ harness: DeliveryHarness, _ app: CreatedApp, _ text: String) async throws -> String {
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
            "app_id": .string(app.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": .string(text)],
        ])
        try #require(response.status == 200, "notification: \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    static func stored(_ harness: DeliveryHarness, _ messageID: String) async throws -> JSONValue? {
        let row = try await harness.app.services.database.query("SELECT send::text AS send FROM messages WHERE id = \(messageID)").firstRow()
        return try row.decode("send", as: String?.self).map { try JSONValue.parse($0) }
    }

    static func failedReason(_ harness: DeliveryHarness, _ messageID: String) async throws -> String? {
        try await harness.app.services.database.query("SELECT failed_reason FROM messages WHERE id = \(messageID)").firstRow()
            .decode("failed_reason")
    }

    static func bodies(_ harness: DeliveryHarness) -> [String: String] {
        Dictionary(harness.simulator.accepted().map {
            ($0.deviceToken, $0.payloadJSON?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue ?? "")
        }, uniquingKeysWith: { first, _ in first })
    }

    @Test func theSendRouteStoresTheCanonicalFormAndWorkersBuildFromIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.tokenA)
        let id = try await Self.notify(harness, harness.created, "from the stored send")
        let stored = try #require(try await Self.stored(harness, id))
        #expect(stored.objectValue?["v"] == 1)
        #expect(try StoredSend.decodeNotification(stored).contents == ["en": "from the stored send"])
        // The request is only echoed by the view now: a worker never reads it.
        try await harness.app.services.database.query("""
            UPDATE messages SET request = '{"contents": {"en": "from the request"}}'::jsonb WHERE id = \(id)
            """)
        try await harness.drain()
        #expect(Self.bodies(harness) == [Self.tokenA: "from the stored send"])
    }

    @Test func aStoredNotificationOfAnUnknownVersionFailsAloneWhileAnotherAppsGoesOut() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await Self.other(harness)
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.tokenA)
        _ = try await harness.app.insertSubscription(appID: other.app.id, token: Self.tokenB)
        let broken = try await Self.notify(harness, harness.created, "never")
        try await harness.app.services.database.query("""
            UPDATE messages SET send = jsonb_set(send, '{v}', '2') WHERE id = \(broken)
            """)
        let fine = try await Self.notify(harness, other, "delivered")
        try await harness.drain()
        #expect(Self.bodies(harness) == [Self.tokenB: "delivered"])
        #expect(try await Self.failedReason(harness, broken)?.contains("version 2") == true)
        #expect(try await Self.failedReason(harness, fine) == nil)
        let metrics = await harness.app.request(.get, "/metrics")
        #expect(metrics.text.contains(#"openpush_messages_failed_total{stage="expansion"} 1"#))
    }

    @Test func aStoredLiveActivityUpdateOfTheWrongShapeFailsAloneWhileAnotherAppsGoesOut() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await Self.other(harness)
        let updateA = "ab" + String(repeating: "2", count: 62)
        let updateB = "bb" + String(repeating: "2", count: 62)
        try await DeliveryGuaranteesTests.openActivity(harness, harness.created, activityID: "game", token: Self.tokenA,
                                                       updateToken: updateA)
        try await DeliveryGuaranteesTests.openActivity(harness, other, activityID: "game", token: Self.tokenB, updateToken: updateB)
        let broken = try await DeliveryGuaranteesTests.update(harness, harness.created, activityID: "game", score: 1)
        try await harness.app.services.database.query("""
            UPDATE messages SET send = jsonb_set(send, '{content_state}', '"not an object"') WHERE id = \(broken)
            """)
        let fine = try await DeliveryGuaranteesTests.update(harness, other, activityID: "game", score: 2)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [updateB])
        #expect(try await Self.failedReason(harness, broken)?.contains("content_state") == true)
        #expect(try await Self.failedReason(harness, fine) == nil)
        let record = try await harness.app.services.database.query("""
            SELECT error_reason FROM deliveries WHERE message_id = \(broken)
            """)
        #expect(try record.map { try $0.decode("error_reason", as: String?.self) } == ["MessageFailed"])
        let metrics = await harness.app.request(.get, "/metrics")
        #expect(metrics.text.contains(#"openpush_messages_failed_total{stage="build"} 1"#))
    }

    @Test func rowsWrittenBeforeTheColumnStillDecodeFromTheirRequest() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let updateToken = "ac" + String(repeating: "3", count: 62)
        try await DeliveryGuaranteesTests.openActivity(harness, harness.created, activityID: "game", token: Self.tokenA,
                                                       updateToken: updateToken)
        let notification = try await Self.notify(harness, harness.created, "legacy notification")
        let update = try await DeliveryGuaranteesTests.update(harness, harness.created, activityID: "game", score: 7)
        // As an older OpenPush wrote them: no stored send, only the request.
        try await harness.app.services.database.query("""
            UPDATE messages SET send = NULL WHERE id IN (\(notification), \(update))
            """)
        try await harness.drain()
        let pushes = harness.simulator.accepted()
        #expect(Self.bodies(harness)[Self.tokenA] == "legacy notification")
        let state = pushes.first { $0.deviceToken == updateToken }?.payloadJSON?.objectValue?["aps"]?.objectValue?["content-state"]
        #expect(state?.objectValue?["home"] == 7)
        #expect(try await Self.failedReason(harness, notification) == nil)
        #expect(try await Self.failedReason(harness, update) == nil)
    }

    @Test func aLiveActivityStartStoresItsSendAndGoesOutFromIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let pts = "cc" + String(repeating: "4", count: 62)
        _ = try await DeliveryEngineTests.startableDevice(harness, pts: pts)
        let started = await DeliveryEngineTests.start(harness, headings: "Stored")
        try #require(started.status == 201, "start: \(started.text)")
        let id = try #require(started.json?.objectValue?["notification_id"]?.stringValue)
        let send = try StoredSend.decodeLiveActivity(try #require(try await Self.stored(harness, id)))
        #expect(send.event == .start && send.activityID == "order-1" && send.attributes == ["orderNumber": "1"])
        try await harness.app.services.database.query("UPDATE messages SET request = '{}'::jsonb WHERE id = \(id)")
        try await harness.drain()
        let alert = harness.simulator.accepted().first?.payloadJSON?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue
        #expect(alert?["title"] == "Stored")
    }
}
