import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /v1/apps/{app_id}/notifications/{notification_id}/opened` against the APNs simulator:
/// a real push writes the device's record, a tap stamps it once (`converted`) and every tap
/// counts in `clicks_total`; anything it cannot attribute is refused with a `{"detail"}`.
@Suite struct NotificationOpenedTests {
    static let tokens = [String(repeating: "b1", count: 32), String(repeating: "b2", count: 32)]

    static func send(_ harness: DeliveryHarness, _ app: CreatedApp? = nil) async throws -> String {
        let app = app ?? harness.created
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
            "app_id": .string(app.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": "Hello"],
        ])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "send: \(response.text)")
    }

    static func tap(_ harness: DeliveryHarness, _ messageID: String, token: String,
                    app: CreatedApp? = nil, sdkKey: String? = nil) async -> TestResponse {
        let app = app ?? harness.created
        return await harness.app.request(.post, "/v1/apps/\(app.app.id)/notifications/\(messageID)/opened",
                                         headers: .sdkKey(sdkKey ?? app.sdkKey), json: ["token": .string(token)])
    }

    /// `converted` and `clicks_total` as `GET /notifications/{id}` shows them.
    static func counts(_ harness: DeliveryHarness, _ messageID: String, app: CreatedApp? = nil) async throws
        -> (converted: Int64?, clicks: Int64?)
    {
        let app = app ?? harness.created
        let response = await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(app.restKey),
                                                 query: ["app_id": app.app.id])
        let view = try #require(response.json?.objectValue, "view: \(response.text)")
        return (view["converted"]?.intValue, view["clicks_total"]?.intValue)
    }

    static func clickedAt(_ harness: DeliveryHarness, _ messageID: String, _ subscriptionID: String) async throws -> Double? {
        let rows = try await harness.app.services.database.query("""
            SELECT extract(epoch FROM clicked_at)::float8 AS clicked_at FROM deliveries
            WHERE message_id = \(messageID) AND subscription_id = \(subscriptionID)
            """)
        return try #require(rows.first).decode("clicked_at")
    }

    @Test func theFirstTapCountsInConvertedAndEveryTapInClicksTotal() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let first = try await harness.app.insertSubscription(appID: appID, token: Self.tokens[0])
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.tokens[1])
        let messageID = try await Self.send(harness)
        try await harness.drain()
        #expect(try await Self.counts(harness, messageID) == (0, 0))

        let tapped = await Self.tap(harness, messageID, token: Self.tokens[0])
        #expect(tapped.status == 200)
        #expect(tapped.json == ["ok": true])
        #expect(try await Self.counts(harness, messageID) == (1, 1))
        let stamped = try #require(try await Self.clickedAt(harness, messageID, first))

        // Tapped again: one more click, still one device converted, its first tap kept.
        #expect(await Self.tap(harness, messageID, token: Self.tokens[0]).status == 200)
        #expect(try await Self.counts(harness, messageID) == (1, 2))
        #expect(try await Self.clickedAt(harness, messageID, first) == stamped)

        // The other device (token as iOS reports it, upper case) converts too.
        #expect(await Self.tap(harness, messageID, token: Self.tokens[1].uppercased()).status == 200)
        #expect(try await Self.counts(harness, messageID) == (2, 3))
    }

    @Test func tapsItCannotAttributeAreRefused() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let subscription = try await harness.app.insertSubscription(appID: appID, token: Self.tokens[0])
        let other = try await harness.app.createApp(AppSettings(
            name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
            apnsBundleID: DeliveryHarness.bundleID))
        _ = try await harness.app.insertSubscription(appID: other.app.id, token: Self.tokens[0])
        let messageID = try await Self.send(harness)
        let elsewhere = try await Self.send(harness, other)
        try await harness.drain()
        let liveActivity = try await harness.app.insertLiveActivityPush(appID: appID, subscriptionID: subscription,
                                                                        activityID: "order-1")

        let unknownToken = await Self.tap(harness, messageID, token: String(repeating: "e", count: 64))
        #expect(unknownToken.status == 404)
        #expect(unknownToken.json == ["detail": "unknown device token for this app"])
        for id in ["msg_unknown", elsewhere, liveActivity] {
            let response = await Self.tap(harness, id, token: Self.tokens[0])
            #expect(response.status == 404)
            #expect(response.json == ["detail": .string("notification '\(id)' not found")])
        }
        let wrongKey = await Self.tap(harness, messageID, token: Self.tokens[0], sdkKey: other.sdkKey)
        #expect(wrongKey.status == 401)
        #expect(wrongKey.json == ["detail": .string(Authentication.badSDKKey)])
        let unknownApp = await harness.app.request(.post, "/v1/apps/app_unknown/notifications/\(messageID)/opened",
                                                   headers: .sdkKey(harness.created.sdkKey),
                                                   json: ["token": .string(Self.tokens[0])])
        #expect(unknownApp.status == 404)
        #expect(unknownApp.json == ["detail": "unknown app 'app_unknown'"])
        let noToken = await harness.app.request(.post, "/v1/apps/\(appID)/notifications/\(messageID)/opened",
                                                headers: .sdkKey(harness.created.sdkKey), json: [:])
        #expect(noToken.status == 400)
        #expect(noToken.json?.objectValue?.keys.sorted() == ["detail"])

        #expect(try await Self.counts(harness, messageID) == (0, 0))
        #expect(try await Self.counts(harness, elsewhere, app: other) == (0, 0))
    }

    @Test func aTapBeforeThePushReachedTheDeviceIs404() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.tokens[0])
        let messageID = try await Self.send(harness)
        let detail: JSONValue = ["detail": .string("notification '\(messageID)' has not reached this device — no tap to count")]

        // Queued, not yet sent: no record to stamp.
        let early = await Self.tap(harness, messageID, token: Self.tokens[0])
        #expect(early.status == 404)
        #expect(early.json == detail)

        // A device registered after the send never gets it.
        try await harness.drain()
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.tokens[1])
        let late = await Self.tap(harness, messageID, token: Self.tokens[1])
        #expect(late.status == 404)
        #expect(late.json == detail)
        #expect(try await Self.counts(harness, messageID) == (0, 0))
    }

    /// A tap finds its device's record in one descent of each record index, not by reading the
    /// message's records in id order: here 20,000 other devices' rows come first in id order,
    /// and 20 batches of 1,000 other devices each lie beside the device's in the batch index.
    @Test func aTapOnANotificationOfManyDevicesReadsOnlyItsDevicesEntries() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let device = try await harness.app.insertSubscription(appID: appID, token: Self.tokens[0])
        let messageID = try await Self.send(harness)
        try await harness.drain()
        let database = harness.app.services.database
        try await database.query("""
            INSERT INTO delivery_rows (id, message_id, app_id, subscription_id, token_kind, state, finished_at)
            OVERRIDING SYSTEM VALUE
            SELECT -g, \(messageID), \(appID), 'sub_' || lpad(g::text, 8, '0'), 'device', 'accepted', now()
            FROM generate_series(1, 20000) AS g
            """)
        try await database.query("""
            INSERT INTO delivery_batches (job_id, message_id, app_id, token_kind, attempts, subscription_ids,
                                          first_subscription_id, last_subscription_id, finished_at)
            SELECT -b, \(messageID), \(appID), 'device', 1, array_agg(id ORDER BY id), min(id), max(id), now()
            FROM (SELECT b, 'sub_' || lpad((b * 1000 + g)::text, 8, '0') AS id
                  FROM generate_series(1, 20) AS b, generate_series(1, 1000) AS g) AS devices
            GROUP BY b
            """)
        try await database.query("ANALYZE delivery_rows")
        try await database.query("ANALYZE delivery_batches")
        let plan = try await database.transaction { connection in
            try connection.query("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
                                 + OpenedStore.firstRecord(messageID: messageID, subscriptionID: device, appID: appID))
        }
        let explained = try JSONValue.parse(try plan[0].decode("QUERY PLAN", as: String.self))
        let top = try #require(explained.arrayValue?.first?.objectValue?["Plan"]?.objectValue)
        let blocks = (top["Shared Hit Blocks"]?.intValue ?? 0) + (top["Shared Read Blocks"]?.intValue ?? 0)
        #expect(blocks < 60, "the lookup read \(blocks) blocks")
        #expect(await Self.tap(harness, messageID, token: Self.tokens[0]).status == 200)
        #expect(try await Self.clickedAt(harness, messageID, device) != nil)
    }
}
