import Foundation
import Testing
import APNs
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Delivery is at-least-once: a worker killed mid fan-out, or PostgreSQL going away during
/// delivery, loses no row.
@Suite struct DeliveryResilienceTests {
    /// `count` devices with push-to-start tokens and one queued start delivery each. Tokens start
    /// with `aa` so none falls under the simulator's programmed prefixes (`dead…`, `bad0…`, `5000…`).
    static func queueStarts(_ count: Int, harness: DeliveryHarness) async throws {
        let appID = harness.created.app.id
        let request: JSONValue = [
            "event": "start", "activity_id": "crash-1", "name": "n", "event_attributes": ["a": 1], "event_updates": ["b": 2],
            "headings": ["en": "t"], "contents": ["en": "b"], "included_segments": ["Subscribed Users"],
        ]
        try await harness.app.seed { connection in
            try connection.query("""
                INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
                SELECT 'sub_c' || i, \(appID), 'aa' || md5('c' || i) || md5('d' || i), now(), now() FROM generate_series(1, \(count)) AS i
                """)
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, event, name, activity_type, activity_id, request, audience_total)
                VALUES ('msg_crash', \(appID), 'live_activity', 'start', 'n', 'T', 'crash-1', \(request.serialized)::jsonb, \(count))
                """)
            try connection.query("""
                INSERT INTO push_to_start_tokens (id, app_id, subscription_id, activity_type, token)
                SELECT 'pts_c' || i, \(appID), 'sub_c' || i, 'T', 'aa' || md5('e' || i) || md5('f' || i)
                FROM generate_series(1, \(count)) AS i
                """)
            try DeliveryQueue.enqueue(messageID: "msg_crash", appID: appID, lane: .urgent, tokenKind: .pushToStart, recipients: """
                SELECT 'sub_c' || i AS subscription_id, 'aa' || md5('e' || i) || md5('f' || i) AS token,
                       NULL::text AS live_activity_id, NULL::int AS badge
                FROM generate_series(1, \(count)) AS i
                """, in: connection)
        }
    }

    static func accepted(_ harness: DeliveryHarness) async throws -> Int {
        try await harness.app.services.database.query("SELECT count(*)::int AS n FROM deliveries WHERE state = 'accepted'").firstRow().decode("n")
    }

    static func waitUntil(_ timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    @Test func aWorkerKilledMidFanOutLosesNothing() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let total = 20_000
        try await Self.queueStarts(total, harness: harness)
        let environment = ["OPENPUSH_DATABASE_URL": harness.app.conninfo, "OPENPUSH_APNS_PRODUCTION_URL": harness.simulator.endpoint,
                           "OPENPUSH_APNS_DEVELOPMENT_URL": harness.simulator.endpoint]
        let first = try OpenPushProcess(["worker"], environment: environment)
        #expect(try await Self.waitUntil(.seconds(60)) { harness.simulator.acceptedCount >= 2000 })
        first.signal(SIGKILL)
        _ = try await first.waitForExit()
        let acceptedAtKill = try await Self.accepted(harness)
        #expect(acceptedAtKill < total, "the worker finished before it could be killed")

        let second = try OpenPushProcess(["worker"], environment: environment)
        // Rows the dead worker held come back when its 30 s leases run out.
        let finished = try await Self.waitUntil(.seconds(90)) { try await Self.accepted(harness) == total }
        second.signal(SIGTERM)
        _ = try await second.waitForExit()
        let acceptedAtEnd = try await Self.accepted(harness)
        #expect(finished, "accepted \(acceptedAtEnd) of \(total)")
        let leftovers = try await harness.app.services.database.query("""
            SELECT state, attempts, error_reason FROM deliveries WHERE state <> 'accepted' LIMIT 5
            """)
        let described = try leftovers.map {
            "\(try $0.decode("state", as: String.self)) attempts=\(try $0.decode("attempts", as: Int.self)) "
                + "reason=\(try $0.decode("error_reason", as: String?.self) ?? "-")"
        }
        #expect(described.isEmpty, "\(described)")
        #expect(try await DeliveryQueue.depth(in: harness.app.services.database) == 0)
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)).count == total)
    }

    @Test func postgresRestartedDuringDeliveryLosesNothing() async throws {
        let database = try await PrivateCluster(prefix: "openpush-delivery-outage")
        let cluster = database.cluster
        defer { withExtendedLifetime(database) {} }
        var settings = DeliveryHarness.quickSettings()
        settings.jobSize = 200
        let harness = try await DeliveryHarness.make(settings: settings, conninfo: database.conninfo)
        defer { Task { await harness.shutdown() } }
        let total = 3000
        try await Self.queueStarts(total, harness: harness)
        harness.engine.start()
        #expect(try await Self.waitUntil(.seconds(30)) { harness.simulator.acceptedCount >= 400 })
        try cluster.stop(mode: .fast)
        try await Task.sleep(for: .milliseconds(500))
        try cluster.start()
        let finished = try await Self.waitUntil(.seconds(60)) { (try? await Self.accepted(harness)) == total }
        let acceptedAtEnd = (try? await Self.accepted(harness)) ?? -1
        #expect(finished, "accepted \(acceptedAtEnd) of \(total)")
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)).count == total)
    }

    @Test func aNotificationFanOutSurvivesAKilledWorker() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let total = 50_000
        let appID = harness.created.app.id
        try await harness.app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_n' || lpad(i::text, 6, '0'), \(appID), 'aa' || md5('n' || i) || md5('m' || i), now(), now()
            FROM generate_series(1, \(total)) AS i
            """)
        let sent = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey), json: [
            "app_id": .string(appID), "contents": ["en": "Hello"], "included_segments": ["Subscribed Users"],
        ])
        #expect(sent.status == 200)
        let environment = ["OPENPUSH_DATABASE_URL": harness.app.conninfo, "OPENPUSH_APNS_PRODUCTION_URL": harness.simulator.endpoint,
                           "OPENPUSH_APNS_DEVELOPMENT_URL": harness.simulator.endpoint]
        let first = try OpenPushProcess(["worker"], environment: environment)
        #expect(try await Self.waitUntil(.seconds(90)) { harness.simulator.acceptedCount >= total / 2 })
        first.signal(SIGKILL)
        _ = try await first.waitForExit()
        #expect(try await Self.accepted(harness) < total, "the worker finished before it could be killed")

        let second = try OpenPushProcess(["worker"], environment: environment)
        let finished = try await Self.waitUntil(.seconds(120)) { try await Self.accepted(harness) == total }
        second.signal(SIGTERM)
        _ = try await second.waitForExit()
        #expect(finished)
        // The audience was expanded exactly once: one delivery row per device, however the crash fell.
        let rows = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n, count(DISTINCT subscription_id)::int AS devices FROM deliveries
            """).firstRow()
        #expect(try rows.decode("n", as: Int.self) == total)
        #expect(try rows.decode("devices", as: Int.self) == total)
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)).count == total)
    }
}
