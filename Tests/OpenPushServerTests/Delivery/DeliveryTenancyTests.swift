import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// What one app's push renders must come from that app's rows only, even when two apps use the
/// same `external_id` — in the engine (a job per message) and in a context loaded for several
/// apps at once.
@Suite struct DeliveryTenancyTests {
    /// Registers a device of `external_id` `u1` whose user has `email`, holding the Live
    /// Activity `game-1` with `updateToken`.
    static func userWithActivity(_ harness: DeliveryHarness, _ app: CreatedApp, email: String, token: String,
                                 updateToken: String) async throws {
        let user = await harness.app.request(.post, "/apps/\(app.app.id)/users", headers: .restKey(app.restKey),
                                             json: ["identity": ["external_id": "u1", "email": .string(email)]])
        try #require(user.status == 201, "user: \(user.text)")
        _ = try await harness.app.deviceID(app, ["token": .string(token), "external_id": "u1"])
        let activity = await harness.app.request(.post, "/v1/apps/\(app.app.id)/live-activities", headers: .sdkKey(app.sdkKey),
                                                 json: ["token": .string(token), "activity_id": "game-1",
                                                        "activity_type": "Score", "update_token": .string(updateToken)])
        try #require(activity.status == 200, "activity: \(activity.text)")
    }

    @Test func aBatchOfTwoAppsRendersEachUsersOwnAliases() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let first = harness.created
        // The same credentials, so the simulator accepts both apps' pushes.
        let second = try await harness.app.createApp(AppSettings(name: "Second", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                 apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        let firstToken = String(repeating: "1a", count: 32), secondToken = String(repeating: "2b", count: 32)
        try await Self.userWithActivity(harness, first, email: "first@a.example", token: String(repeating: "01", count: 32),
                                        updateToken: firstToken)
        try await Self.userWithActivity(harness, second, email: "second@b.example", token: String(repeating: "02", count: 32),
                                        updateToken: secondToken)
        for app in [first, second] {
            let sent = await harness.app.request(.post, "/apps/\(app.app.id)/live_activities/game-1/notifications",
                                                 headers: .restKey(app.restKey),
                                                 json: ["event": "update", "name": "n", "event_updates": ["home": 1],
                                                        "headings": ["en": "{{ user.aliases.email }}"], "contents": ["en": "x"]])
            try #require(sent.status == 201, "send: \(sent.text)")
        }
        #expect(try await harness.drain() == 2)
        let titles = Dictionary(uniqueKeysWithValues: harness.simulator.accepted().map { push in
            (push.deviceToken, push.payloadJSON?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"]?.stringValue)
        })
        #expect(titles == [firstToken: "first@a.example", secondToken: "second@b.example"])
        // One context loaded for both apps' recipients keeps them apart too.
        let queued = try await harness.app.services.database.query("""
            SELECT m.id AS message_id, m.app_id, la.subscription_id, la.id AS live_activity_id, la.update_token, m.push_timestamp
            FROM messages m JOIN live_activities la ON la.app_id = m.app_id ORDER BY m.app_id
            """)
        let deliveries = try queued.enumerated().map { index, row in
            ClaimedDelivery(id: Int64(index), apnsID: UUID().uuidString, messageID: try row.decode("message_id"),
                            appID: try row.decode("app_id"), subscriptionID: try row.decode("subscription_id"),
                            liveActivityID: try row.decode("live_activity_id"), tokenKind: .update,
                            token: try row.decode("update_token"), badge: nil, attempts: 1, createdAt: harness.app.services.now())
        }
        // Forget what was sent, so the planner builds both pushes again.
        try await harness.app.services.database.query("UPDATE live_activities SET last_push_timestamp = NULL")
        let context = try await harness.app.services.database.withConnection { try DeliveryContext.load(for: deliveries, in: $0) }
        let rendered = try deliveries.map { delivery -> String? in
            let plan = try DeliveryPlanner.plan(delivery, context: context, now: harness.app.services.now(), lastTimestamps: [:]).get()
            let payload = try JSONValue.parse(String(decoding: plan.request.payloadBytes, as: UTF8.self))
            return payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"]?.stringValue
        }
        let expected = try queued.map { row -> String in
            try row.decode("app_id", as: String.self) == first.app.id ? "first@a.example" : "second@b.example"
        }
        #expect(rendered == expected)
    }
}
