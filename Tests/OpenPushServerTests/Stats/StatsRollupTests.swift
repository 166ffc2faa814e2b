import Foundation
import Testing
import APNs
import APNsSimulator
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The stats routes read a per-app, per-second rollup (`delivery_stats`, migration 0035) that
/// every writer of a record adds to as it writes it. Here their figures are checked against a
/// direct count of the records (what the routes counted before the rollup) after real sends
/// through the engine and the simulator, a cancel, a failed message, suppression and taps; after
/// the upgrade from 0034 with records in place; and after the retention drops a day.
@Suite struct StatsRollupTests {
    static let orgKey = "stats-rollup-organization-key-0123"
    static let org: HTTPHeaders = .restKey(orgKey)

    static func token(_ prefix: String, _ n: Int) -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", n)
    }

    static func object(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        try #require(response.status == 200, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try #require(response.json?.objectValue, sourceLocation: sourceLocation)
    }

    /// `GET /apps/{app_id}/stats`'s figures counted straight from the app's records in the
    /// response's `[from, to)`, as the route counted them before the rollup.
    /// With `service`, only the records of subscriptions of that push service (by platform; a
    /// record whose subscription is gone is `apns`'s).
    static func directAppFigures(_ database: PostgresPool, appID: String, from: Int64, to: Int64,
                                 service: PushService? = nil) async throws -> JSONObject {
        var window: PostgresQuery = """
            app_id = \(appID) AND created_at >= to_timestamp(\(from)::float8) AND created_at < to_timestamp(\(to)::float8)
            """
        if let service {
            window.append("""
                 AND (CASE (SELECT platform FROM subscriptions s WHERE s.id = subscription_id)
                      WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'webpush' ELSE 'apns' END) = \(service.rawValue)
                """)
        }
        let row = try await database.query("""
            SELECT count(*) FILTER (WHERE state IN ('accepted', 'error'))::bigint AS sent,
                   count(*) FILTER (WHERE state = 'accepted')::bigint AS accepted,
                   count(*) FILTER (WHERE state = 'error')::bigint AS failed,
                   count(*) FILTER (WHERE state = 'suppressed')::bigint AS suppressed,
                   count(*) FILTER (WHERE clicked_at IS NOT NULL)::bigint AS clicked
            FROM deliveries WHERE \(window)
            """).firstRow()
        let reasons = try await database.query("""
            SELECT error_reason, count(*)::bigint AS n FROM deliveries
            WHERE \(window) AND state = 'error' AND error_reason IS NOT NULL
            GROUP BY error_reason ORDER BY n DESC, error_reason
            """).map { (try $0.decode("error_reason", as: String.self), JSONValue.int(try $0.decode("n", as: Int64.self))) }
        var figures = JSONObject()
        for name in ["sent", "accepted", "failed", "suppressed", "clicked"] {
            figures[name] = .int(try row.decode(name, as: Int64.self))
        }
        figures["errors_by_reason"] = .object(JSONObject(reasons))
        return figures
    }

    static func figures(_ body: JSONObject) -> JSONObject {
        JSONObject(["sent", "accepted", "failed", "suppressed", "clicked", "errors_by_reason"].map { ($0, body[$0] ?? .null) })
    }

    /// One app's route against the direct count of its records over the same window.
    @discardableResult
    static func expectAppMatchesRecords(_ app: TestApp, _ appID: String, window: String = "1h",
                                        sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONObject {
        let body = try object(await app.request(.get, "/apps/\(appID)/stats", headers: org, query: ["window": window]),
                              sourceLocation: sourceLocation)
        let from = try #require(body["from"]?.intValue), to = try #require(body["to"]?.intValue)
        let direct = try await directAppFigures(app.services.database, appID: appID, from: from, to: to)
        #expect(figures(body) == direct, sourceLocation: sourceLocation)
        // And each push service's, every one present.
        let byService = try #require(body["by_service"]?.objectValue, sourceLocation: sourceLocation)
        #expect(byService.keys.sorted() == ["apns", "fcm", "webpush"], sourceLocation: sourceLocation)
        for service in PushService.allCases {
            let part = try #require(byService[service.rawValue]?.objectValue, sourceLocation: sourceLocation)
            let direct = try await directAppFigures(app.services.database, appID: appID, from: from, to: to, service: service)
            #expect(figures(part) == direct, "\(service)", sourceLocation: sourceLocation)
        }
        return body
    }

    /// `GET /stats/throughput`'s series against the direct count of every app's records per bucket.
    @discardableResult
    static func expectThroughputMatchesRecords(_ app: TestApp, window: String, step: String,
                                               sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONObject {
        let body = try object(await app.request(.get, "/stats/throughput", headers: org,
                                                query: ["window": window, "step": step]), sourceLocation: sourceLocation)
        let from = try #require(body["from"]?.intValue), to = try #require(body["to"]?.intValue)
        let stepSeconds = try #require(body["step_seconds"]?.intValue)
        let rows = try await app.services.database.query("""
            SELECT (floor(extract(epoch FROM d.created_at) / \(stepSeconds)::bigint)::bigint * \(stepSeconds)::bigint) AS at,
                   count(*) FILTER (WHERE d.state = 'accepted')::bigint AS accepted,
                   count(*) FILTER (WHERE d.state = 'error')::bigint AS failed
            FROM deliveries d JOIN apps a ON a.id = d.app_id
            WHERE d.created_at >= to_timestamp(\(from)::float8) AND d.created_at < to_timestamp(\(to)::float8)
              AND d.state IN ('accepted', 'error')
            GROUP BY 1
            """)
        var counted: [Int64: (accepted: Int64, failed: Int64)] = [:]
        for row in rows { counted[try row.decode("at")] = (try row.decode("accepted"), try row.decode("failed")) }
        let series = StatsBuckets(step: stepSeconds, first: from, count: (to - from) / stepSeconds).fill(counted)
        let expected: JSONValue = .array(series.map { ["at": .int($0.at), "accepted": .int($0.accepted), "failed": .int($0.failed)] })
        #expect(body["buckets"] == expected, sourceLocation: sourceLocation)
        return body
    }

    /// Drains until no job is left (retries come back after their backoff).
    static func settle(_ harness: DeliveryHarness) async throws {
        try await MessageCountsTests.settle(harness)
    }

    static func post(_ harness: DeliveryHarness, _ body: JSONObject = [:]) async throws -> String {
        var object: JSONObject = ["app_id": .string(harness.created.app.id), "contents": ["en": "Hello"],
                                  "included_segments": ["Subscribed Users"]]
        for (name, value) in body { object[name] = value }
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey),
                                                 json: .object(object))
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.status) \(response.text)")
    }

    @Test func statsEqualADirectCountOfTheRecordsAfterEveryKindOfWrite() async throws {
        var settings = DeliveryHarness.quickSettings()
        // A retry waits an hour: it runs only when `settle` makes it due, after the 503 below has
        // turned into a 200, however long the first drain takes on a loaded machine.
        settings.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings, configure: { $0.organizationAPIKey = Self.orgKey })
        defer { Task { await harness.shutdown() } }
        let app = harness.app, created = harness.created, database = app.services.database
        let appID = created.app.id
        harness.simulator.setBehaviour(APNSSimulator.Behaviour(status: 400, reason: "BadTopic"), forTokenPrefix: "abad")
        let accepted = (0..<3).map { Self.token("aa", $0) }
        let tokens = accepted + [Self.token("dead", 1), Self.token("dead", 2), Self.token("bad0", 1),
                                 Self.token("abad", 1), Self.token("5030", 1), Self.token("5000", 1)]
        for token in tokens { _ = try await app.insertSubscription(appID: appID, token: token) }

        // Another app, whose records (written in SQL, counted again from its records) must never
        // show in the first app's figures.
        let other = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        try await database.query("""
            WITH written AS (
                INSERT INTO delivery_rows (apns_id, message_id, app_id, subscription_id, token_kind, state, error_reason,
                                           finished_at)
                SELECT gen_random_uuid(), 'msg_other', \(other.app.id), 'sub_o' || i, 'device',
                       CASE WHEN i % 2 = 0 THEN 'accepted' ELSE 'error' END,
                       CASE WHEN i % 2 = 0 THEN NULL ELSE 'TooManyRequests' END, now()
                FROM generate_series(1, 7) AS i
                RETURNING id, message_id, subscription_id, created_at)
            INSERT INTO delivery_clicks (message_id, subscription_id, record_id, record_created_at, clicked_at)
            SELECT message_id, subscription_id, id, created_at, now() FROM written WHERE subscription_id = 'sub_o2'
            """)
        try await app.recountDeliveryStats([other.app.id])

        // Accepted, unreachable, other errors, one retried then accepted, one retried until it gave up.
        let sent = try await Self.post(harness)
        try await harness.drain()
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        try await Self.settle(harness)
        // Taps: a device tapping twice counts once.
        for token in [accepted[0], accepted[0], accepted[1]] {
            let tap = await app.request(.post, "/v1/apps/\(appID)/notifications/\(sent)/opened",
                                        headers: .sdkKey(created.sdkKey), json: ["token": .string(token)])
            #expect(tap.status == 200)
        }
        let first = try await Self.expectAppMatchesRecords(app, appID)
        #expect(first["accepted"] == 4, "the recipient retried then accepted counts once, as accepted")
        #expect(first["clicked"] == 2)
        #expect(first["errors_by_reason"]?.objectValue?["BadTopic"] == 1)

        // Suppressed (stale), and a message whose recipients wait in a job when it fails.
        _ = try await Self.post(harness, ["event_at": .double(app.services.now() - 3600), "stale_after_seconds": 900])
        try await Self.settle(harness)
        try await database.query("INSERT INTO messages (id, app_id, kind) VALUES ('msg_failing', \(appID), 'notification')")
        try await database.query("""
            INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, attempt, due_at, subscription_ids, tokens,
                                       live_activity_ids, badges)
            VALUES ('msg_failing', \(appID), 1, 'device', 1, now() + interval '1 hour', ARRAY['sub_f1', 'sub_f2'],
                    ARRAY['ff', 'fe'], ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::int[])
            """)
        try await database.transaction { connection in
            try DeliveryQueue.fail(messageID: "msg_failing", reason: "a test broke it", in: connection)
        }

        // Cancelled while its jobs wait.
        let cancelled = try await Self.post(harness)
        try await harness.engine.runOnce()
        let cancel = await app.request(.delete, "/notifications/\(cancelled)", headers: .restKey(created.restKey),
                                       query: ["app_id": appID])
        #expect(cancel.json == ["success": true])
        try await Self.settle(harness)

        let all = try await Self.expectAppMatchesRecords(app, appID)
        #expect((all["suppressed"]?.intValue ?? 0) > 0, "\(all)")
        #expect(all["errors_by_reason"]?.objectValue?["MessageFailed"] == 2)
        let cancelledInRollup: Int64 = try await database.query("""
            SELECT COALESCE(sum(cancelled), 0)::bigint AS n FROM delivery_stats WHERE app_id = \(appID)
            """).firstRow().decode("n")
        let cancelledRecords: Int64 = try await database.query("""
            SELECT count(*)::bigint AS n FROM deliveries WHERE app_id = \(appID) AND state = 'cancelled'
            """).firstRow().decode("n")
        #expect(cancelledRecords > 0)
        #expect(cancelledInRollup == cancelledRecords)
        try await Self.expectAppMatchesRecords(app, appID, window: "30d")
        try await Self.expectAppMatchesRecords(app, appID, window: "10s")

        // The other app's figures are its own only, and the series has both.
        let second = try await Self.expectAppMatchesRecords(app, other.app.id)
        #expect(Self.figures(second) == ["sent": 7, "accepted": 3, "failed": 4, "suppressed": 0, "clicked": 1,
                                         "errors_by_reason": ["TooManyRequests": 4]])
        try await Self.expectThroughputMatchesRecords(app, window: "15m", step: "1s")
        let series = try await Self.expectThroughputMatchesRecords(app, window: "1h", step: "10s")
        let totals = try #require(series["totals"]?.objectValue)
        #expect(totals["accepted"] == .int(try #require(all["accepted"]?.intValue) + 3))
    }

    /// Jobs of one app completed by two engines at once, upserting the same seconds' rows.
    @Test func twoEnginesOnOneAppCountEachRecordOnce() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.jobSize = 20
        let harness = try await DeliveryHarness.make(settings: settings, configure: { $0.organizationAPIKey = Self.orgKey })
        defer { Task { await harness.shutdown() } }
        let app = harness.app, created = harness.created
        try await MessageCountsTests.seedSixHundredOneInSixDead(harness)
        let second = DeliveryEngine(services: app.services, client: harness.client, settings: settings, logger: .discarding())
        _ = try await Self.post(harness)
        _ = try await Self.post(harness, ["contents": ["en": "Again"]])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for engine in [harness.engine, second] {
                group.addTask { while try await engine.runOnce() > 0 {} }
            }
            try await group.waitForAll()
        }
        try await Self.settle(harness)
        await second.stop()
        let body = try await Self.expectAppMatchesRecords(app, created.app.id)
        #expect(Self.figures(body) == ["sent": 1200, "accepted": 1000, "failed": 200, "suppressed": 0, "clicked": 0,
                                       "errors_by_reason": ["Unregistered": 200]])
        try await Self.expectThroughputMatchesRecords(app, window: "5m", step: "1s")
    }

    /// A database at 0034 holds records of two apps; migration 0035 backfills the rollup from
    /// them, so the routes show what they showed before, and drops the index they read.
    @Test func theUpgradeFrom0034BackfillsTheRollupFromTheRecords() async throws {
        let empty = try await TestDatabase.create().createEmptySibling()
        let now = (Date().timeIntervalSince1970).rounded(.down)
        let app = try TestApp.make(conninfo: empty, configure: { $0.organizationAPIKey = Self.orgKey }, now: { now })
        let migrations = app.services.migrations
        try await Migrator(pool: app.services.database).apply(migrations.filter { $0.version < 35 })
        let a = try await app.createApp().app.id
        let b = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other")).app.id
        // Every state, reasons and taps, spread over the last two days (several per second too).
        let records: [(String, String, String?, Bool)] = [
            (a, "accepted", nil, true), (a, "accepted", nil, false), (a, "accepted", nil, true),
            (a, "error", "Unregistered", false), (a, "error", "TooManyRequests", false), (a, "error", nil, false),
            (a, "cancelled", nil, false), (a, "suppressed", "stale", false), (a, "superseded", nil, false),
            (b, "accepted", nil, true), (b, "error", "BadDeviceToken", false), (b, "suppressed", "deduplicated", false),
        ]
        try await app.services.database.transaction { connection in
            for round in 0..<40 {
                for (n, (appID, state, reason, clicked)) in records.enumerated() {
                    // Three records a second, from now back to about 44 hours ago.
                    let at = now - Double(round * round * 100 + n / 3) - 0.25
                    try connection.query("""
                        INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, token_kind, token, state,
                                                error_reason, finished_at, created_at, clicked_at)
                        VALUES (gen_random_uuid(), \("msg_\(round)"), \(appID), \("sub_\(n)"), 'device', 'aa', \(state), \(reason),
                                to_timestamp(\(at)), to_timestamp(\(at)), to_timestamp(\(clicked ? at + 5 : nil)::float8))
                        """)
                }
            }
        }
        try await Migrator(pool: app.services.database).apply(migrations, functions: app.services.functions)

        for appID in [a, b] {
            for window in ["10s", "1h", "24h", "2d", "30d"] {
                try await Self.expectAppMatchesRecords(app, appID, window: window)
            }
        }
        let day = try await Self.expectAppMatchesRecords(app, a, window: "30d")
        #expect(Self.figures(day) == ["sent": 240, "accepted": 120, "failed": 120, "suppressed": 40, "clicked": 80,
                                      "errors_by_reason": ["TooManyRequests": 40, "Unregistered": 40]])
        for (window, step) in [("1m", "1s"), ("15m", "10s"), ("24h", "5m"), ("24h", "87s")] {
            try await Self.expectThroughputMatchesRecords(app, window: window, step: step)
        }
        let indexes = try await app.services.database.query("""
            SELECT indexname::text AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'delivery_rows'
            """).map { try $0.decode("name", as: String.self) }
        #expect(indexes == ["delivery_rows_by_message"])
        await app.services.database.close()
    }

    /// The retention drops a day's partition and that day's rollup rows with it; other days stay.
    @Test func aDroppedPartitionTakesItsDaysRollupRowsAlong() async throws {
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = Self.orgKey })
        let a = try await app.createApp().app.id
        let database = app.services.database
        let now = app.services.now()
        let old = UTCDay(containing: now) - 40
        try await database.query("SELECT openpush_delivery_partitions(\(old.isoDate)::date, \(old.isoDate)::date)")
        for at in [old.startSeconds + 60, old.startSeconds + 86_399, now - 30] {
            try await database.query("""
                INSERT INTO delivery_rows (apns_id, message_id, app_id, subscription_id, token_kind, state, finished_at,
                                           created_at)
                VALUES (gen_random_uuid(), 'msg_old', \(a), 'sub_old', 'device', 'accepted', to_timestamp(\(at)),
                        to_timestamp(\(at)))
                """)
        }
        try await app.recountDeliveryStats([a])
        // A row of the second just after the day (no record backs it here): it stays.
        try await database.query("""
            INSERT INTO delivery_stats (app_id, bucket, service, shard, accepted)
            VALUES (\(a), to_timestamp(\((old + 1).startSeconds)), 'apns', 0, 1)
            """)
        func rows() async throws -> [Int64] {
            try await database.query("""
                SELECT extract(epoch FROM bucket)::bigint AS at FROM delivery_stats WHERE app_id = \(a) ORDER BY bucket
                """).map { try $0.decode("at") }
        }
        #expect(try await rows() == [Int64(old.startSeconds) + 60, Int64(old.startSeconds) + 86_399,
                                     Int64((old + 1).startSeconds), Int64((now - 30).rounded(.down))])
        let outcome = try await Maintenance.runOnce(app.services, now: now)
        #expect(outcome.partitions.dropped.contains(old))
        #expect(try await rows() == [Int64((old + 1).startSeconds), Int64((now - 30).rounded(.down))])
        let body = try await Self.expectAppMatchesRecords(app, a)
        #expect(body["accepted"] == 1)
    }
}
