import Foundation
import Testing
import APNs
import Crypto
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// What the job engine promises beyond "it delivers": fair across tenants, failure per message,
/// Live Activity order, stops that stick, `ttl: 0`, a graceful stop that sends nothing twice, and
/// an upgrade that loses nothing queued.
@Suite struct DeliveryGuaranteesTests {
    static func states(_ harness: DeliveryHarness) async throws -> [String: Int] {
        try await DeliveryEngineTests.states(harness)
    }

    /// A device of `app` holding Live Activity `activityID` with `updateToken`.
    static func openActivity(_ harness: DeliveryHarness, _ app: CreatedApp, activityID: String, token: String,
                             updateToken: String) async throws {
        _ = try await harness.app.insertSubscription(appID: app.app.id, token: token)
        let registered = await harness.app.request(.post, "/v1/apps/\(app.app.id)/live-activities", headers: .sdkKey(app.sdkKey),
                                                   json: ["token": .string(token), "activity_id": .string(activityID),
                                                          "activity_type": "Score", "update_token": .string(updateToken)])
        try #require(registered.status == 200, "register: \(registered.text)")
    }

    static func update(_ harness: DeliveryHarness, _ app: CreatedApp, activityID: String, score: Int) async throws -> String {
        let response = await harness.app.request(.post, "/apps/\(app.app.id)/live_activities/\(activityID)/notifications",
                                                 headers: .restKey(app.restKey),
                                                 json: ["event": "update", "name": "n", "event_updates": ["home": .int(Int64(score))]])
        try #require(response.status == 201, "update: \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    /// Makes every waiting retry due now: time passes without the test waiting for it.
    static func retriesComeDue(_ harness: DeliveryHarness) async throws {
        try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now()")
    }

    /// Retries far enough out that nothing retries by itself while a test looks.
    static func slowRetries() -> DeliveryEngine.Settings {
        var settings = DeliveryHarness.quickSettings()
        settings.retryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: 60, maxDelay: 60)
        return settings
    }

    static func seed(_ harness: DeliveryHarness, _ n: Int, prefix: String = "aa") async throws {
        try await harness.app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || lpad(g::text, 8, '0'), \(harness.created.app.id), \(prefix) || lpad(to_hex(g), 62, '0'), now(), now()
            FROM generate_series(1, \(n)) AS g
            """)
    }

    static func notify(_ harness: DeliveryHarness, _ body: JSONObject) async throws -> String {
        let response = await NotificationRoutesTests.post(harness, body)
        try #require(response.status == 200, "notification: \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    static func view(_ harness: DeliveryHarness, _ messageID: String) async -> JSONObject {
        await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                  query: ["app_id": harness.created.app.id]).json?.objectValue ?? [:]
    }

    // MARK: fairness

    @Test func anotherAppsLiveActivityUpdatePassesAFanOut() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.loops = 2
        settings.appJobsInFlight = 1
        settings.jobSize = 500
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let total = 30_000
        try await Self.seed(harness, total)
        let other = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                                apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        let updateToken = "ee" + String(repeating: "1", count: 62)
        try await Self.openActivity(harness, other, activityID: "game", token: "ff" + String(repeating: "0", count: 62),
                                    updateToken: updateToken)
        _ = try await Self.notify(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "Big news"]])
        harness.engine.start()
        #expect(try await DeliveryResilienceTests.waitUntil(.seconds(60)) { harness.simulator.acceptedCount >= 2000 })
        _ = try await Self.update(harness, other, activityID: "game", score: 1)
        let passed = try await DeliveryResilienceTests.waitUntil(.seconds(30)) {
            harness.simulator.accepted().contains { $0.deviceToken == updateToken }
        }
        #expect(passed)
        // The update went out while the fan-out was still draining.
        let pushes = harness.simulator.accepted()
        let position = try #require(pushes.firstIndex { $0.deviceToken == updateToken })
        #expect(position < total, "the update waited for the whole fan-out (position \(position))")
    }

    // MARK: failure per message

    @Test func aMessageThatNoLongerDecodesFailsAloneAndSaysWhy() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await Self.openActivity(harness, harness.created, activityID: "a", token: "aa" + String(repeating: "1", count: 62),
                                    updateToken: "ab" + String(repeating: "1", count: 62))
        let broken = try await Self.update(harness, harness.created, activityID: "a", score: 1)
        // The stored send no longer decodes (a bad upgrade, a hand edit).
        try await harness.app.services.database.query("""
            UPDATE messages SET send = send - 'name' WHERE id = \(broken)
            """)
        let fine = try await Self.update(harness, harness.created, activityID: "a", score: 2)
        try await harness.drain()
        #expect(try await Self.states(harness) == ["accepted": 1, "error": 1])
        let record = try await harness.app.services.database.query("""
            SELECT error_reason FROM deliveries WHERE message_id = \(broken)
            """).firstRow()
        #expect(try record.decode("error_reason", as: String?.self) == "MessageFailed")
        let view = await Self.view(harness, broken)
        #expect(view["failed_reason"]?.stringValue?.contains("name") == true, "\(view)")
        #expect(await Self.view(harness, fine)["successful"] == 1)
        #expect(harness.simulator.accepted().count == 1)
        let metrics = await harness.app.request(.get, "/metrics")
        #expect(metrics.text.contains(#"openpush_messages_failed_total{stage="build"} 1"#))
        _ = appID
    }

    @Test func anExpansionThatKeepsFailingIsRetriedThenFailedWithoutHoldingOthers() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 3)
        let appID = harness.created.app.id
        try await harness.app.services.database.query("""
            INSERT INTO segments (id, app_id, name, filters)
            VALUES ('seg_1', \(appID), 'Fans', '[{"field": "session_count", "relation": ">", "value": "0"}]')
            """)
        let stuck = try await Self.notify(harness, ["included_segments": ["Fans"], "contents": ["en": "x"]])
        // The stored segment no longer parses: every page of the message throws.
        try await harness.app.services.database.query("UPDATE segments SET filters = '[{\"field\": \"gone\"}]' WHERE id = 'seg_1'")
        let fine = try await Self.notify(harness, ["include_subscription_ids": ["sub_00000001"], "contents": ["en": "y"]])
        // One more try per drain (two when a loaded machine's drain outlasts the 10 s backoff),
        // pending until the last, which fails it.
        var attempts = 0
        while attempts < NotificationExpansion.maximumAttempts {
            try await harness.drain()
            let row = try await harness.app.services.database.query("""
                SELECT expansion, expansion_attempts FROM messages WHERE id = \(stuck)
                """).firstRow()
            let tried = try row.decode("expansion_attempts", as: Int.self)
            #expect(tried > attempts, "a drain did not try the expansion again")
            guard tried > attempts else { break }
            attempts = tried
            #expect(try row.decode("expansion", as: String.self) == (attempts < NotificationExpansion.maximumAttempts ? "pending" : "failed"))
            // Time passes: the backoff before the next try is over.
            try await harness.app.services.database.query("UPDATE messages SET expansion_retry_at = NULL WHERE id = \(stuck)")
        }
        #expect(attempts == NotificationExpansion.maximumAttempts)
        #expect(await Self.view(harness, fine)["successful"] == 1)
        #expect(await Self.view(harness, stuck)["failed_reason"]?.stringValue?.contains("no longer parse") == true)
        let metrics = await harness.app.request(.get, "/metrics")
        #expect(metrics.text.contains(#"openpush_messages_failed_total{stage="expansion"} 1"#))
    }

    @Test func aStoredSendThatNoLongerDecodesFailsItsExpansionAtOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 3)
        let stuck = try await Self.notify(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]])
        try await harness.app.services.database.query("""
            UPDATE messages SET send = '"not an object"'::jsonb WHERE id = \(stuck)
            """)
        try await harness.drain()
        let row = try await harness.app.services.database.query("""
            SELECT expansion, expansion_attempts, failed_reason FROM messages WHERE id = \(stuck)
            """).firstRow()
        #expect(try row.decode("expansion", as: String.self) == "failed")
        #expect(try row.decode("expansion_attempts", as: Int.self) == 1)
        #expect(try row.decode("failed_reason", as: String?.self) != nil)
    }

    // MARK: Live Activity order

    @Test func anOlderUpdateRetriedAfterANewerOneWasAcceptedIsDropped() async throws {
        let harness = try await DeliveryHarness.make(settings: Self.slowRetries())
        defer { Task { await harness.shutdown() } }
        let updateToken = "5030" + String(repeating: "7", count: 60)
        try await Self.openActivity(harness, harness.created, activityID: "game", token: "aa" + String(repeating: "2", count: 62),
                                    updateToken: updateToken)
        // The timestamp rule alone (with coalescing, the newer one waits for the older one's
        // interval: `PushIntervalsTests`).
        try await harness.app.services.database.query("UPDATE apps SET live_activity_update_interval_seconds = 0")
        // The first update meets a 503 and waits for its retry.
        let older = try await Self.update(harness, harness.created, activityID: "game", score: 1)
        try await harness.drain()
        #expect(try await Self.states(harness) == ["queued": 1])
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        let newer = try await Self.update(harness, harness.created, activityID: "game", score: 2)
        try await harness.drain()
        // Now the older one's retry comes due.
        try await Self.retriesComeDue(harness)
        try await harness.drain()
        let states = try await harness.app.services.database.query("""
            SELECT message_id, state FROM deliveries
            """).map { (try $0.decode("message_id", as: String.self), try $0.decode("state", as: String.self)) }
        #expect(Dictionary(uniqueKeysWithValues: states) == [older: "superseded", newer: "accepted"])
        let pushes = harness.simulator.accepted()
        #expect(pushes.count == 1)
        #expect(pushes.first?.payloadJSON?.objectValue?["aps"]?.objectValue?["content-state"]?.objectValue?["home"] == 2)
        // Timestamps were fixed when each was queued, in order.
        let stamps = try await harness.app.services.database.query("""
            SELECT push_timestamp FROM messages WHERE id IN (\(older), \(newer)) ORDER BY created_at, id
            """).map { try $0.decode("push_timestamp", as: Int64.self) }
        #expect(stamps.count == 2 && stamps[0] < stamps[1], "\(stamps)")
        let sent = pushes.first?.payloadJSON?.objectValue?["aps"]?.objectValue?["timestamp"]?.intValue
        #expect(sent == stamps.last, "the push carries the timestamp fixed when it was queued")
    }

    // MARK: stops stick

    @Test func aCancelledMessageSendsNoRetry() async throws {
        let harness = try await DeliveryHarness.make(settings: Self.slowRetries())
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 1, prefix: "5030")
        let messageID = try await Self.notify(harness, ["include_subscription_ids": ["sub_00000001"], "contents": ["en": "x"]])
        try await harness.drain()
        #expect(try await Self.states(harness) == ["queued": 1])
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        let cancelled = await harness.app.request(.delete, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                                  query: ["app_id": harness.created.app.id])
        #expect(cancelled.status == 200)
        try await Self.retriesComeDue(harness)
        try await harness.drain()
        #expect(try await Self.states(harness) == ["cancelled": 1])
        #expect(harness.simulator.accepted().isEmpty)
        #expect(await Self.view(harness, messageID)["canceled"] == true)
    }

    @Test func aRetiredDeviceGetsNoRetry() async throws {
        let harness = try await DeliveryHarness.make(settings: Self.slowRetries())
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 1, prefix: "5030")
        _ = try await Self.notify(harness, ["include_subscription_ids": ["sub_00000001"], "contents": ["en": "x"]])
        try await harness.drain()
        #expect(try await Self.states(harness) == ["queued": 1])
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        let retired = await harness.app.request(.delete, "/apps/\(harness.created.app.id)/subscriptions/sub_00000001",
                                                headers: .restKey(harness.created.restKey))
        #expect(retired.status < 300, "\(retired.text)")
        try await Self.retriesComeDue(harness)
        try await harness.drain()
        let record = try await harness.app.services.database.query("SELECT state, error_reason FROM deliveries").firstRow()
        #expect(try record.decode("state", as: String.self) == "error")
        #expect(try record.decode("error_reason", as: String?.self) == "Unsubscribed")
        #expect(harness.simulator.accepted().isEmpty)
    }

    // MARK: ttl 0

    /// The app's clock stopped at the test's start: a `ttl: 0` message is "now" for the
    /// planner however long a loaded machine takes to reach its first attempt (past 5 s it would
    /// be recorded `Expired`, not sent, as `ttlZeroThatWaitedIsExpiredNotSent` checks).
    static func clockStoppedNow() -> @Sendable () -> Double {
        ManualClock(WallClock.now()).source
    }

    @Test func ttlZeroIsNeverRetried() async throws {
        let harness = try await DeliveryHarness.make(now: Self.clockStoppedNow())
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 1, prefix: "5030")
        _ = try await Self.notify(harness, ["include_subscription_ids": ["sub_00000001"], "contents": ["en": "x"], "ttl": 0])
        try await harness.drain()
        let record = try await harness.app.services.database.query("SELECT state, error_reason, attempts FROM deliveries").firstRow()
        #expect(try record.decode("state", as: String.self) == "error")
        #expect(try record.decode("error_reason", as: String?.self) == "ServiceUnavailable")
        #expect(try await DeliveryQueue.depth(in: harness.app.services.database) == 0)
    }

    @Test func ttlZeroThatWaitedIsExpiredNotSent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 1)
        let messageID = try await Self.notify(harness, ["include_subscription_ids": ["sub_00000001"], "contents": ["en": "x"], "ttl": 0])
        // It waited behind a backlog (or a paused app) for a minute.
        try await harness.app.services.database.query("""
            UPDATE messages SET send_after = now() - interval '1 minute' WHERE id = \(messageID)
            """)
        try await harness.drain()
        let record = try await harness.app.services.database.query("SELECT state, error_reason FROM deliveries").firstRow()
        #expect(try record.decode("error_reason", as: String?.self) == "Expired")
        #expect(harness.simulator.accepted().isEmpty)
    }

    @Test func ttlZeroGoesWithExpirationZero() async throws {
        let harness = try await DeliveryHarness.make(now: Self.clockStoppedNow())
        defer { Task { await harness.shutdown() } }
        try await Self.seed(harness, 1)
        _ = try await Self.notify(harness, ["include_subscription_ids": ["sub_00000001"], "contents": ["en": "x"], "ttl": 0])
        try await harness.drain()
        #expect(harness.simulator.accepted().first?.header("apns-expiration") == "0")
    }

    // MARK: graceful stop

    @Test func aWorkerStoppedWithSIGTERMSendsEachDeviceExactlyOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let total = 20_000
        try await DeliveryResilienceTests.queueStarts(total, harness: harness)
        // A starved simulator may leave a push unanswered for 30 s; retried, it would arrive twice.
        let environment = ["OPENPUSH_DATABASE_URL": harness.app.conninfo, "OPENPUSH_APNS_PRODUCTION_URL": harness.simulator.endpoint,
                           "OPENPUSH_APNS_DEVELOPMENT_URL": harness.simulator.endpoint, "OPENPUSH_APNS_REQUEST_TIMEOUT": "300"]
        let first = try OpenPushProcess(["worker"], environment: environment)
        #expect(try await DeliveryResilienceTests.waitUntil(.seconds(60)) { harness.simulator.acceptedCount >= total / 4 })
        first.signal(SIGTERM)
        #expect(try await first.waitForExit(timeout: .seconds(30)) == 0)
        #expect(try await DeliveryResilienceTests.accepted(harness) < total, "the worker finished before it could be stopped")
        // Nothing is left leased: a restart picks up at once, no lease to wait out.
        let leased: Int = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE leased_until > now()
            """).firstRow().decode("n")
        #expect(leased == 0)
        let second = try OpenPushProcess(["worker"], environment: environment)
        let finished = try await DeliveryResilienceTests.waitUntil(.seconds(60)) {
            try await DeliveryResilienceTests.accepted(harness) == total
        }
        second.signal(SIGTERM)
        _ = try await second.waitForExit(timeout: .seconds(30))
        #expect(finished)
        let tokens = harness.simulator.accepted().map(\.deviceToken)
        let warnings = (first.log + second.log).split(separator: "\n").filter { $0.contains("warning") || $0.contains("error") }
        #expect(tokens.count == total, "duplicates: \(tokens.count - Set(tokens).count); the workers said: \(warnings)")
        #expect(Set(tokens).count == total)
    }

    // MARK: upgrades

    @Test func rowsQueuedBeforeTheUpgradeAreDelivered() async throws {
        let empty = try await TestDatabase.create().createEmptySibling()
        let before = try TestApp.make(conninfo: empty)
        try await Migrator(pool: before.services.database).apply(before.services.migrations.filter { $0.version < 14 })
        let harness = try await DeliveryHarness.make(conninfo: empty)
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let request: JSONValue = ["contents": ["en": "queued before"], "included_segments": ["Subscribed Users"]]
        try await harness.app.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
                SELECT 'sub_o' || i, \(appID), 'aa' || md5('o' || i) || md5('p' || i), now(), now() FROM generate_series(1, 1500) AS i
                """)
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, name, request, send_after, expansion, audience_total)
                VALUES ('msg_old', \(appID), 'notification', 'n', \(request.serialized)::jsonb, now(), 'done', 1500)
                """)
            // Under the old schema: 1000 queued, 500 already accepted.
            try connection.query("""
                INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, token_kind, token, state, finished_at)
                SELECT gen_random_uuid(), 'msg_old', \(appID), s.id, 'device', s.token,
                       CASE WHEN n <= 500 THEN 'accepted' ELSE 'queued' END, CASE WHEN n <= 500 THEN now() END
                FROM (SELECT id, token, row_number() OVER (ORDER BY id) AS n FROM subscriptions WHERE app_id = \(appID)) AS s
                """)
        }
        try await Migrator(pool: harness.app.services.database).apply(harness.app.services.migrations, functions: harness.app.services.functions)
        #expect(try await DeliveryQueue.depth(in: harness.app.services.database) == 1000)
        try await harness.drain()
        #expect(try await Self.states(harness) == ["accepted": 1500])
        #expect(harness.simulator.accepted().count == 1000)
        await before.services.database.close()
    }
}
