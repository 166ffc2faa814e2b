import Foundation
import Testing
import APNs
import APNsSimulator
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `GET /notifications/{id}` reads counts kept on the message row as records are written
/// (migration 0033), not its records: here its figures are checked against a direct count of
/// the records, after real sends through the engine and the simulator.
@Suite struct MessageCountsTests {
    static func token(_ prefix: String, _ n: Int) -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", n)
    }

    static func view(_ app: TestApp, _ created: CreatedApp, _ id: String) async throws -> JSONObject {
        let response = await app.request(.get, "/notifications/\(id)", headers: .restKey(created.restKey),
                                         query: ["app_id": created.app.id])
        try #require(response.status == 200, "\(response.status) \(response.text)")
        return try #require(response.json?.objectValue)
    }

    static func post(_ harness: DeliveryHarness, _ body: JSONObject = [:]) async throws -> String {
        var object: JSONObject = ["app_id": .string(harness.created.app.id), "contents": ["en": "Hello"],
                                  "included_segments": ["Subscribed Users"]]
        for (name, value) in body { object[name] = value }
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey),
                                                 json: .object(object))
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.status) \(response.text)")
    }

    /// The view's figures counted straight from the message's records, as the view counted them
    /// before it read kept counts.
    static func direct(_ database: PostgresPool, _ messageID: String) async throws -> JSONObject {
        let row = try await database.query("""
            SELECT count(*) FILTER (WHERE state = 'accepted')::int AS successful,
                   count(*) FILTER (WHERE state = 'error' AND error_reason = ANY(\(DeliveryTally.unreachableReasons)))::int AS failed,
                   count(*) FILTER (WHERE state = 'error' AND NOT (error_reason = ANY(\(DeliveryTally.unreachableReasons))))::int
                       AS errored,
                   count(*) FILTER (WHERE clicked_at IS NOT NULL)::int AS converted,
                   count(*) FILTER (WHERE state = 'cancelled')::int AS cancelled,
                   extract(epoch FROM max(finished_at))::float8 AS last_finished
            FROM deliveries WHERE message_id = \(messageID)
            """).firstRow()
        func byReason(_ state: String) async throws -> [(String, JSONValue)] {
            try await database.query("""
                SELECT error_reason, count(*)::int AS n FROM deliveries
                WHERE message_id = \(messageID) AND state = \(state) AND error_reason IS NOT NULL
                GROUP BY error_reason ORDER BY error_reason
                """).map { (try $0.decode("error_reason", as: String.self), .int(Int64(try $0.decode("n", as: Int.self)))) }
        }
        var suppressed = JSONObject(SuppressionReason.allCases.map { ($0.rawValue, JSONValue.int(0)) })
        for (reason, n) in try await byReason("suppressed") { suppressed[reason] = n }
        let lastFinished: Double? = try row.decode("last_finished")
        return [
            "successful": .int(Int64(try row.decode("successful", as: Int.self))),
            "failed": .int(Int64(try row.decode("failed", as: Int.self))),
            "errored": .int(Int64(try row.decode("errored", as: Int.self))),
            "converted": .int(Int64(try row.decode("converted", as: Int.self))),
            "cancelled": .int(Int64(try row.decode("cancelled", as: Int.self))),
            "errors_by_reason": .object(JSONObject(try await byReason("error"))),
            "suppressed": .object(suppressed),
            "completed_at": lastFinished.map { .int(Int64($0)) } ?? .null,
        ]
    }

    /// The view's figures that `direct` counts; `cancelled` is the direct count's own (the view
    /// shows only `canceled`), so it is left out.
    static func figures(_ view: JSONObject) -> JSONObject {
        JSONObject(["successful", "failed", "errored", "converted", "errors_by_reason", "suppressed", "completed_at"]
            .map { ($0, view[$0] ?? .null) })
    }

    static func expectViewMatchesRecords(_ app: TestApp, _ created: CreatedApp, _ messageID: String,
                                         sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONObject {
        let view = try await Self.view(app, created, messageID)
        var counted = try await Self.direct(app.services.database, messageID)
        counted["cancelled"] = nil
        #expect(Self.figures(view) == counted, sourceLocation: sourceLocation)
        return view
    }

    /// Drains until none of the app's jobs is left; a retry waiting out its backoff is made due at
    /// once, so no test waits on (or races) the clock.
    static func settle(_ harness: DeliveryHarness, engines: [DeliveryEngine]? = nil) async throws {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            try await harness.drain()
            let left: Int = try await harness.app.services.database.query("""
                SELECT (count(*) + (SELECT count(*) FROM messages WHERE expansion = 'pending'))::int AS n FROM delivery_jobs
                """).firstRow().decode("n")
            if left == 0 { return }
            try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE due_at > now()")
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("jobs were left after 90 s")
    }

    static func recordCount(_ database: PostgresPool, _ messageID: String) async throws -> Int {
        try await database.query("SELECT count(*)::int AS n FROM deliveries WHERE message_id = \(messageID)")
            .firstRow().decode("n")
    }

    @Test func everyKindOfRecordIsCountedAsItIsWritten() async throws {
        var settings = DeliveryHarness.quickSettings()
        // A retry waits an hour: it runs only when `settle` makes it due, after the 503 below has
        // turned into a 200, however long the first drain takes on a loaded machine.
        settings.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let app = harness.app, created = harness.created, database = app.services.database
        harness.simulator.setBehaviour(APNSSimulator.Behaviour(status: 400, reason: "BadTopic"), forTokenPrefix: "abad")
        let accepted = (0..<3).map { Self.token("aa", $0) }
        let tokens = accepted + [Self.token("dead", 1), Self.token("dead", 2), Self.token("bad0", 1),
                                 Self.token("abad", 1), Self.token("abad", 2), Self.token("5030", 1), Self.token("5000", 1)]
        for token in tokens { _ = try await app.insertSubscription(appID: created.app.id, token: token) }

        // Accepted, unreachable (failed), other errors (errored), one retried then accepted, one
        // retried until it gave up.
        let sent = try await Self.post(harness)
        try await harness.drain()
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        try await Self.settle(harness)
        // Taps: a device tapping twice converts once.
        for token in [accepted[0], accepted[0], accepted[1]] {
            let tap = await app.request(.post, "/v1/apps/\(created.app.id)/notifications/\(sent)/opened",
                                        headers: .sdkKey(created.sdkKey), json: ["token": .string(token)])
            #expect(tap.status == 200)
        }
        let view = try await Self.expectViewMatchesRecords(app, created, sent)
        #expect(try await Self.recordCount(database, sent) == tokens.count, "one record per recipient, retried or not")
        #expect(view["successful"] == 4, "the recipient retried then accepted counts once, as accepted")
        #expect(view["failed"] == 3)
        #expect(view["errored"] == 3)
        #expect(view["converted"] == 2)
        #expect(view["clicks_total"] == 3)
        #expect(view["errors_by_reason"]?.objectValue?["BadTopic"] == 2)

        // Suppressed, by two reasons.
        let stale = try await Self.post(harness, ["event_at": .double(app.services.now() - 3600), "stale_after_seconds": 900])
        try await Self.settle(harness)
        // Every device still reachable (the unreachable ones were marked dead by the first send).
        let staleView = try await Self.expectViewMatchesRecords(app, created, stale)
        #expect(staleView["suppressed"]?.objectValue?["stale"] == .int(Int64(try await Self.recordCount(database, stale))))
        #expect((staleView["suppressed"]?.objectValue?["stale"]?.intValue ?? 0) > 0)
        _ = try await Self.post(harness, ["dedupe_key": "order-7"])
        try await Self.settle(harness)
        let again = try await Self.post(harness, ["dedupe_key": "order-7"])
        try await Self.settle(harness)
        let deduplicated = try await Self.expectViewMatchesRecords(app, created, again)
        #expect((deduplicated["suppressed"]?.objectValue?["deduplicated"]?.intValue ?? 0) > 0)

        // Cancelled while its jobs wait.
        let cancelled = try await Self.post(harness)
        try await harness.engine.runOnce()
        let cancel = await app.request(.delete, "/notifications/\(cancelled)", headers: .restKey(created.restKey),
                                       query: ["app_id": created.app.id])
        #expect(cancel.json == ["success": true])
        try await Self.settle(harness)
        let cancelledView = try await Self.expectViewMatchesRecords(app, created, cancelled)
        #expect(cancelledView["canceled"] == true)
        let direct = try await Self.direct(database, cancelled)
        #expect((direct["cancelled"]?.intValue ?? 0) > 0, "\(direct)")

        // Another app's key does not read these counts.
        let other = try await app.createApp(AppSettings(name: "Other"))
        let foreign = await app.request(.get, "/notifications/\(sent)", headers: .restKey(other.restKey),
                                        query: ["app_id": other.app.id])
        #expect(foreign.status == 404)
    }

    /// 600 devices of the harness's app, every sixth with a token the simulator calls dead.
    static func seedSixHundredOneInSixDead(_ harness: DeliveryHarness) async throws {
        try await harness.app.services.database.query("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_c' || i, \(harness.created.app.id),
                   CASE WHEN i % 6 = 0 THEN 'dead' ELSE 'cc' END || lpad(to_hex(i), CASE WHEN i % 6 = 0 THEN 60 ELSE 62 END, '0'),
                   now(), now()
            FROM generate_series(1, 600) AS i
            """)
    }

    /// Jobs of one message completed by two engines at once: every record is counted exactly once.
    @Test func twoEnginesOnOneMessageCountExactly() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.jobSize = 20
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let app = harness.app, created = harness.created
        try await Self.seedSixHundredOneInSixDead(harness)
        let second = DeliveryEngine(services: app.services, client: harness.client, settings: settings, logger: .discarding())
        let messageID = try await Self.post(harness)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for engine in [harness.engine, second] {
                group.addTask { while try await engine.runOnce() > 0 {} }
            }
            try await group.waitForAll()
        }
        try await Self.settle(harness)
        await second.stop()
        let view = try await Self.expectViewMatchesRecords(app, created, messageID)
        #expect(view["successful"] == 500)
        #expect(view["failed"] == 100)
        #expect(view["errors_by_reason"] == ["Unregistered": 100])
        #expect(try await Self.recordCount(app.services.database, messageID) == 600)
    }

    /// Records written by the engine, then their partition dropped: the view answers the same.
    @Test func aDroppedPartitionLeavesTheCountsAsTheyWere() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let app = harness.app, created = harness.created, database = app.services.database
        let tokens = (0..<4).map { Self.token("ee", $0) } + [Self.token("dead", 9)]
        for token in tokens { _ = try await app.insertSubscription(appID: created.app.id, token: token) }
        let messageID = try await Self.post(harness)
        try await Self.settle(harness)
        let tap = await app.request(.post, "/v1/apps/\(created.app.id)/notifications/\(messageID)/opened",
                                    headers: .sdkKey(created.sdkKey), json: ["token": .string(tokens[0])])
        #expect(tap.status == 200)
        let before = try await Self.expectViewMatchesRecords(app, created, messageID)
        #expect(before["successful"] == 4 && before["failed"] == 1 && before["converted"] == 1)

        // Moved into a day past the retention, which maintenance then drops.
        let old = UTCDay(containing: app.services.now()) - 40
        try await database.query("SELECT openpush_delivery_partitions(\(old.isoDate)::date, \(old.isoDate)::date)")
        for table in ["delivery_rows", "delivery_batches"] {
            try await database.query("""
                UPDATE \(identifier: table) SET created_at = to_timestamp(\(old.startSeconds + 60)) WHERE message_id = \(messageID)
                """)
        }
        try await database.query("""
            UPDATE delivery_clicks SET record_created_at = to_timestamp(\(old.startSeconds + 60)) WHERE message_id = \(messageID)
            """)
        let outcome = try await Maintenance.runOnce(app.services, now: app.services.now())
        #expect(outcome.partitions.dropped.contains(old))
        #expect(try await Self.recordCount(database, messageID) == 0)
        let taps: Int = try await database.query("SELECT count(*)::int AS n FROM delivery_clicks WHERE message_id = \(messageID)")
            .firstRow().decode("n")
        #expect(taps == 0)
        #expect(try await Self.view(app, created, messageID) == before)
        // Another pass counts nothing twice.
        try await Maintenance.runOnce(app.services, now: app.services.now())
        #expect(try await Self.view(app, created, messageID) == before)
    }

    /// A database at 0032 holds records written the old way (and archived figures of a dropped
    /// partition); migration 0033 backfills the counts, so the view shows what it showed before.
    @Test func theUpgradeBackfillsCountsFromRecordsAndTheArchive() async throws {
        let empty = try await TestDatabase.create().createEmptySibling()
        let app = try TestApp.make(conninfo: empty)
        let migrations = app.services.migrations
        try await Migrator(pool: app.services.database).apply(migrations.filter { $0.version < 33 })
        let created = try await app.createApp()
        let appID = created.app.id
        let t0 = 1_800_000_000.0
        try await app.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, name, request, send_after, expansion, audience_total, created_at,
                                      archived_successful, archived_failed, archived_errored, archived_converted,
                                      archived_cancelled, archived_errors_by_reason, archived_suppressed_by_reason,
                                      archived_last_finished_at)
                VALUES ('msg_up', \(appID), 'notification', 'n', '{"contents": {"en": "x"}}'::jsonb, to_timestamp(\(t0)), 'done',
                        20, to_timestamp(\(t0)), 5, 1, 2, 1, 0,
                        '{"Unregistered": 1, "TooManyRequests": 1, "PayloadTooLarge": 1}', '{"stale": 1}',
                        to_timestamp(\(t0 + 10)))
                """)
            let records: [(String, String?, Bool)] = [
                ("accepted", nil, true), ("accepted", nil, false), ("error", "Unregistered", false),
                ("error", "TooManyRequests", false), ("error", "TooManyRequests", false), ("error", nil, false),
                ("cancelled", nil, false), ("suppressed", "stale", false), ("suppressed", "stale", false),
            ]
            for (n, (state, reason, clicked)) in records.enumerated() {
                let finished = t0 + 100 + Double(n)
                let clickedAt: Double? = clicked ? finished + 1 : nil
                try connection.query("""
                    INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, token_kind, token, state, error_reason,
                                            finished_at, clicked_at)
                    VALUES (gen_random_uuid(), 'msg_up', \(appID), \("sub_\(n)"), 'device', 'aa', \(state), \(reason),
                            to_timestamp(\(finished)), to_timestamp(\(clickedAt)::float8))
                    """)
            }
        }
        try await Migrator(pool: app.services.database).apply(migrations, functions: app.services.functions)
        let view = try await Self.view(app, created, "msg_up")
        #expect(view["successful"] == 7)
        #expect(view["failed"] == 2)
        #expect(view["errored"] == 4)
        #expect(view["converted"] == 2)
        #expect(view["canceled"] == true)
        #expect(view["errors_by_reason"] == ["PayloadTooLarge": 1, "TooManyRequests": 3, "Unregistered": 2])
        #expect(view["suppressed"]?.objectValue?["stale"] == 3)
        #expect(view["completed_at"] == .int(Int64(t0) + 108))
        await app.services.database.close()
    }
}

extension MessageCountsTests {
    /// `openpush_add_counts` (PL/pgSQL since migration 0038) sums two reason → count maps key by
    /// key, and gives the first back as it is when there is nothing to add.
    @Test func reasonCountsAddKeyByKey() async throws {
        let app = try await TestApp.make()
        let row = try await app.services.database.query("""
            SELECT openpush_add_counts('{"Unregistered": 2, "BadDeviceToken": 1}', '{"Unregistered": 3, "TooManyRequests": 4}')::text AS summed,
                   openpush_add_counts('{"Unregistered": 2}', '{}')::text AS nothing,
                   openpush_add_counts('{"Unregistered": 2}', NULL)::text AS null_added,
                   openpush_add_counts('{}', '{"Expired": 1}')::text AS into_empty,
                   (SELECT prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql') FROM pg_proc
                    WHERE proname = 'openpush_add_counts') AS plpgsql
            """).firstRow()
        let summed = try JSONValue.parse(try row.decode("summed", as: String.self))
        #expect(summed == ["Unregistered": 5, "BadDeviceToken": 1, "TooManyRequests": 4])
        #expect(try JSONValue.parse(try row.decode("nothing", as: String.self)) == ["Unregistered": 2])
        #expect(try JSONValue.parse(try row.decode("null_added", as: String.self)) == ["Unregistered": 2])
        #expect(try JSONValue.parse(try row.decode("into_empty", as: String.self)) == ["Expired": 1])
        #expect(try row.decode("plpgsql", as: Bool.self))
    }
}
