import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `GET /stats/throughput` and `GET /apps/{app_id}/stats` against the harness's PostgreSQL: the
/// series over every app with empty buckets filled, one app's figures that never count another
/// app's records, the window's bounds, and the organization key.
@Suite struct StatsRoutesTests {
    static let orgKey = "stats-organization-key-0123456789"
    static let org: HTTPHeaders = .restKey(orgKey)

    /// A fixed clock on a 10-second boundary (today, so records land in a real daily partition).
    static let now = (Date().timeIntervalSince1970 / 10).rounded(.down) * 10

    static func make() async throws -> TestApp {
        try await TestApp.make(configure: { $0.organizationAPIKey = orgKey }, now: { now })
    }

    /// A record of `app`, finished `ago` seconds before `now`.
    static func record(_ app: TestApp, appID: String, ago: Double, state: String, reason: String? = nil,
                       clicked: Bool = false) async throws {
        let at = now - ago
        try await app.services.database.query("""
            WITH written AS (
                INSERT INTO delivery_rows (apns_id, message_id, app_id, subscription_id, token_kind, state, attempts,
                                           error_reason, finished_at, created_at)
                VALUES (gen_random_uuid(), 'msg_stats', \(appID), 'sub_' || gen_random_uuid(), 'device', \(state), 1, \(reason),
                        to_timestamp(\(at)), to_timestamp(\(at)))
                RETURNING id, message_id, subscription_id, created_at)
            INSERT INTO delivery_clicks (message_id, subscription_id, record_id, record_created_at, clicked_at)
            SELECT message_id, subscription_id, id, created_at, created_at FROM written WHERE \(clicked)
            ON CONFLICT DO NOTHING
            """)
        // Written in SQL, not by the engine: the app's rollup rows are counted again from its records.
        try await app.recountDeliveryStats([appID])
    }

    static func object(_ response: TestResponse) throws -> JSONObject {
        try #require(response.status == 200, "\(response.status) \(response.text)")
        return try #require(response.json?.objectValue)
    }

    static func error(_ message: String) -> JSONValue { ["errors": [.string(message)]] }

    @Test func throughputCountsEveryAppPerBucketAndFillsTheGaps() async throws {
        let app = try await Self.make()
        let a = try await app.createApp().app.id
        let b = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other")).app.id
        try await Self.record(app, appID: a, ago: 25, state: "accepted")
        try await Self.record(app, appID: a, ago: 21, state: "accepted")
        try await Self.record(app, appID: a, ago: 22, state: "error", reason: "Unregistered")
        try await Self.record(app, appID: b, ago: 5, state: "accepted")
        // Neither accepted nor failed: not in the series.
        try await Self.record(app, appID: b, ago: 5, state: "suppressed", reason: "stale")
        try await Self.record(app, appID: b, ago: 5, state: "cancelled")
        // Before the window.
        try await Self.record(app, appID: a, ago: 61, state: "accepted")

        let body = try Self.object(await app.request(.get, "/stats/throughput", headers: Self.org,
                                                      query: ["window": "1m", "step": "10s"]))
        let first = Int64(Self.now) - 50
        #expect(body["window_seconds"] == 60)
        #expect(body["step_seconds"] == 10)
        #expect(body["from"] == .int(first))
        #expect(body["to"] == .int(Int64(Self.now) + 10))
        #expect(body["buckets"] == .array([
            ["at": .int(first), "accepted": 0, "failed": 0],
            ["at": .int(first + 10), "accepted": 0, "failed": 0],
            ["at": .int(first + 20), "accepted": 2, "failed": 1],
            ["at": .int(first + 30), "accepted": 0, "failed": 0],
            ["at": .int(first + 40), "accepted": 1, "failed": 0],
            ["at": .int(first + 50), "accepted": 0, "failed": 0],
        ]))
        #expect(body["totals"] == ["accepted": 3, "failed": 1])
        #expect(body["queue_depth"] == 0)
        #expect(body["apns_connections"] == 0)
    }

    @Test func throughputDefaultsToFifteenMinutesAndShowsQueueAndConnections() async throws {
        let app = try await Self.make()
        let created = try await app.createApp()
        try await app.insertSubscription(appID: created.app.id, token: String(repeating: "ab", count: 32))
        let sent = await app.request(.post, "/notifications", headers: .restKey(created.restKey), json: [
            "app_id": .string(created.app.id), "included_segments": ["Subscribed Users"],
            "contents": ["en": "Queued"],
        ])
        let messageID = try #require(sent.json?.objectValue?["id"]?.stringValue, "\(sent.text)")
        // A job of two recipients, not sent yet.
        try await app.services.database.query("""
            INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, attempt, due_at, subscription_ids, tokens,
                                       live_activity_ids, badges)
            VALUES (\(messageID), \(created.app.id), 1, 'device', 1, now() + interval '1 hour', ARRAY['sub_a', 'sub_b'],
                    ARRAY['aa', 'bb'], ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::int[])
            """)
        app.services.metrics.addGauges { [("openpush_apns_connections_open", "connections", 2)] }
        let body = try Self.object(await app.request(.get, "/stats/throughput", headers: Self.org))
        #expect(body["window_seconds"] == 900)
        #expect(body["step_seconds"] == 10)
        #expect(body["buckets"]?.arrayValue?.count == 90)
        #expect(try #require(body["queue_depth"]?.intValue) >= 2)
        #expect(body["apns_connections"] == 2)
    }

    @Test func oneAppsStatsNeverCountAnotherApps() async throws {
        let app = try await Self.make()
        let a = try await app.createApp().app.id
        let b = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other")).app.id
        for index in 0..<3 {
            try await app.insertSubscription(appID: a, token: String(repeating: "a\(index)", count: 32))
        }
        try await app.services.database.query("UPDATE subscriptions SET enabled = false WHERE token = \(String(repeating: "a0", count: 32))")
        try await app.insertSubscription(appID: b, token: String(repeating: "b0", count: 32))
        try await Self.record(app, appID: a, ago: 60, state: "accepted", clicked: true)
        try await Self.record(app, appID: a, ago: 3600, state: "accepted")
        try await Self.record(app, appID: a, ago: 7200, state: "error", reason: "Unregistered")
        try await Self.record(app, appID: a, ago: 7300, state: "error", reason: "Unregistered")
        try await Self.record(app, appID: a, ago: 7400, state: "error", reason: "BadDeviceToken")
        try await Self.record(app, appID: a, ago: 10, state: "suppressed", reason: "deduplicated")
        // Older than the day.
        try await Self.record(app, appID: a, ago: 90_000, state: "accepted")
        // The other app's records, of every kind.
        try await Self.record(app, appID: b, ago: 30, state: "accepted", clicked: true)
        try await Self.record(app, appID: b, ago: 30, state: "error", reason: "TooManyRequests")

        let first = try Self.object(await app.request(.get, "/apps/\(a)/stats", headers: Self.org))
        #expect(first == [
            "app_id": .string(a), "window_seconds": 86400, "from": .int(Int64(Self.now) - 86400), "to": .int(Int64(Self.now)),
            "devices": 3, "subscribed": 2, "sent": 5, "accepted": 2, "failed": 3, "suppressed": 1, "clicked": 1,
            "errors_by_reason": ["Unregistered": 2, "BadDeviceToken": 1],
            // Every push service, zeros included: records of gone subscriptions count as `apns`.
            "by_service": [
                "apns": ["sent": 5, "accepted": 2, "failed": 3, "suppressed": 1, "clicked": 1,
                         "errors_by_reason": ["Unregistered": 2, "BadDeviceToken": 1]],
                "fcm": ["sent": 0, "accepted": 0, "failed": 0, "suppressed": 0, "clicked": 0, "errors_by_reason": [:]],
                "webpush": ["sent": 0, "accepted": 0, "failed": 0, "suppressed": 0, "clicked": 0, "errors_by_reason": [:]],
            ],
            "apns_status": ["state": "ok", "reason": nil, "at": nil],
        ])
        let second = try Self.object(await app.request(.get, "/apps/\(b)/stats", headers: Self.org))
        #expect(second["devices"] == 1)
        #expect(second["sent"] == 2)
        #expect(second["accepted"] == 1)
        #expect(second["failed"] == 1)
        #expect(second["clicked"] == 1)
        #expect(second["errors_by_reason"] == ["TooManyRequests": 1])

        // A shorter window: only the last 90 minutes' records.
        let hour = try Self.object(await app.request(.get, "/apps/\(a)/stats", headers: Self.org, query: ["window": "90m"]))
        #expect(hour["sent"] == 2)
        #expect(hour["errors_by_reason"] == [:])
        let week = try Self.object(await app.request(.get, "/apps/\(a)/stats", headers: Self.org, query: ["window": "7d"]))
        #expect(week["accepted"] == 3)
    }

    @Test func aPausedAppShowsItsStatus() async throws {
        let app = try await Self.make()
        let a = try await app.createApp().app.id
        try await app.services.database.query("""
            UPDATE apps SET apns_paused_at = now(), apns_status_reason = 'InvalidProviderToken', apns_status_at = now() WHERE id = \(a)
            """)
        let body = try Self.object(await app.request(.get, "/apps/\(a)/stats", headers: Self.org))
        #expect(body["apns_status"]?.objectValue?["state"] == "paused")
        #expect(body["apns_status"]?.objectValue?["reason"] == "InvalidProviderToken")
    }

    @Test func theOrganizationKeyIsNeededAndAnAppsRESTKeyIsNotIt() async throws {
        let app = try await Self.make()
        let created = try await app.createApp()
        let refused = Self.error(Authentication.badOrganizationKey)
        for path in ["/stats/throughput", "/apps/\(created.app.id)/stats"] {
            let none = await app.request(.get, path)
            #expect(none.status == 401)
            #expect(none.json == refused)
            let rest = await app.request(.get, path, headers: .restKey(created.restKey))
            #expect(rest.status == 401)
            #expect(rest.json == refused)
            let sdk = await app.request(.get, path, headers: .restKey(created.sdkKey))
            #expect(sdk.status == 401)
        }
        let unknown = await app.request(.get, "/apps/app_nope/stats", headers: Self.org)
        #expect(unknown.status == 404)
        #expect(unknown.json == Self.error("unknown app 'app_nope'"))
    }

    @Test func badWindowsAndStepsAreNamed() async throws {
        let app = try await Self.make()
        let created = try await app.createApp()
        let badWindow = await app.request(.get, "/stats/throughput", headers: Self.org, query: ["window": "2d"])
        #expect(badWindow.status == 400)
        #expect(badWindow.json == Self.error(ThroughputRequest.invalidWindow))
        let badStep = await app.request(.get, "/stats/throughput", headers: Self.org, query: ["step": "0s"])
        #expect(badStep.json == Self.error(ThroughputRequest.invalidStep))
        let tooMany = await app.request(.get, "/stats/throughput", headers: Self.org, query: ["window": "24h", "step": "1m"])
        #expect(tooMany.status == 400)
        #expect(tooMany.json == Self.error(ThroughputRequest.tooManyBuckets))
        let both = await app.request(.get, "/stats/throughput", headers: Self.org, query: ["window": "soon", "step": "often"])
        #expect(both.json == ["errors": [.string(ThroughputRequest.invalidWindow), .string(ThroughputRequest.invalidStep)]])
        let appWindow = await app.request(.get, "/apps/\(created.app.id)/stats", headers: Self.org, query: ["window": "1y"])
        #expect(appWindow.status == 400)
        #expect(appWindow.json == Self.error(AppStatsRequest.invalidWindow))
    }

    /// The routes read the rollup's rows of the window through its key, never the records: with
    /// a day of one app's rows around a one-minute window (and another app's), each statement
    /// the routes run is an index range scan on the window (by `(app_id, bucket)` or `bucket`),
    /// and `deliveries` is not in any plan. The planner is left to choose (no scan type is turned off).
    @Test func bothRoutesReadOnlyTheWindowsRollupRows() async throws {
        let app = try await Self.make()
        let a = try await app.createApp().app.id
        let b = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other")).app.id
        try await app.services.database.query("""
            INSERT INTO delivery_stats (app_id, bucket, service, shard, accepted, failed, errors_by_reason)
            SELECT app, to_timestamp(\(Self.now)::float8 - i), 'apns', 0, 1, 1, '{"Unregistered": 1}'
            FROM unnest(ARRAY[\(a), \(b)]) AS app, generate_series(1, 86400, 3) AS i
            """)
        try await app.services.database.query("ANALYZE delivery_stats")
        let buckets = ThroughputRequest(window: 60, step: 1).buckets(now: Self.now)
        let from = Int64(Self.now) - 60, to = Int64(Self.now)
        let statements = [StatsStore.throughputQuery(buckets), StatsStore.appCountsQuery(a, from: from, to: to),
                          StatsStore.appReasonsQuery(a, from: from, to: to)]
        for statement in statements {
            let plan = try await app.services.database.query("EXPLAIN (ANALYZE, FORMAT TEXT) " + statement)
                .map { try $0.decode("QUERY PLAN", as: String.self) }.joined(separator: "\n")
            // By the key (app, then the window's range) or by the bucket index: either way only the window.
            let scans = plan.split(separator: "\n").filter { $0.contains("Scan using delivery_stats_") }
            #expect(!scans.isEmpty, "\(plan)")
            #expect(plan.split(separator: "\n").contains { $0.contains("Index Cond: (") && $0.contains("bucket >= ") }, "\(plan)")
            #expect(!plan.contains("Seq Scan on delivery_stats") && !plan.contains("deliveries"), "\(plan)")
        }
        // And the figures are the window's only: 20 rows of each app in the last minute.
        let series = try Self.object(await app.request(.get, "/stats/throughput", headers: Self.org,
                                                        query: ["window": "1m", "step": "1s"]))
        #expect(series["totals"] == ["accepted": 40, "failed": 40])
        let one = try Self.object(await app.request(.get, "/apps/\(a)/stats", headers: Self.org, query: ["window": "1m"]))
        #expect(one["sent"] == 40)
        #expect(one["errors_by_reason"] == ["Unregistered": 20])
    }

    @Test func aSentNotificationShowsInBothRoutes() async throws {
        let harness = try await DeliveryHarness.make(configure: { $0.organizationAPIKey = Self.orgKey })
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await harness.app.insertSubscription(appID: appID, token: String(repeating: "c1", count: 32))
        try await harness.app.insertSubscription(appID: appID, token: "dead" + String(repeating: "0", count: 60))
        let sent = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey), json: [
            "app_id": .string(appID), "included_segments": ["Subscribed Users"], "contents": ["en": "Hello"],
        ])
        #expect(sent.status == 200, "\(sent.text)")
        try await harness.drain()
        let series = try Self.object(await harness.app.request(.get, "/stats/throughput", headers: Self.org))
        #expect(series["totals"] == ["accepted": 1, "failed": 1])
        let stats = try Self.object(await harness.app.request(.get, "/apps/\(appID)/stats", headers: Self.org))
        #expect(stats["sent"] == 2)
        #expect(stats["accepted"] == 1)
        #expect(stats["errors_by_reason"] == ["Unregistered": 1])
    }
}
