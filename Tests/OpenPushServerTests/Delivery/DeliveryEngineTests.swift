import Foundation
import Testing
import APNs
import Crypto
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The delivery engine against the local APNs simulator: what goes on the wire, and what each
/// answer does to the rows behind it.
@Suite struct DeliveryEngineTests {
    static let type = "DeliveryAttributes"
    static let deviceToken = String(repeating: "0a", count: 32)

    /// A device with a push-to-start token (`pts`) for the type, and the start route's body.
    static func startableDevice(_ harness: DeliveryHarness, token: String = deviceToken, pts: String,
                                tags: [String: String] = [:]) async throws -> String {
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: token, externalID: "u-\(token.prefix(6))")
        let tagsJSON = JSONValue.object(JSONObject(tags.map { ($0.key, JSONValue.string($0.value)) })).serialized
        try await harness.app.services.database.query("UPDATE subscriptions SET tags = \(tagsJSON)::jsonb WHERE id = \(subscription)")
        let response = await harness.app.request(.post, "/v1/apps/\(harness.created.app.id)/live-activities/push-to-start",
                                                 headers: .sdkKey(harness.created.sdkKey),
                                                 json: ["token": .string(token), "activity_type": .string(type), "push_to_start_token": .string(pts)])
        #expect(response.status == 200)
        return subscription
    }

    static func start(_ harness: DeliveryHarness, headings: String = "On the way", body extra: JSONObject = [:]) async -> TestResponse {
        var body: JSONObject = [
            "event": "start", "activity_id": "order-1", "name": "n",
            "event_attributes": ["orderNumber": "1"], "event_updates": ["status": "out"],
            "headings": ["en": .string(headings)], "contents": ["en": "Soon"],
            "included_segments": ["Subscribed Users"],
        ]
        for (key, value) in extra { body[key] = value }
        return await harness.app.request(.post, "/apps/\(harness.created.app.id)/activities/activity/\(type)",
                                         headers: .restKey(harness.created.restKey), json: .object(body))
    }

    /// Recipients by state: each device's record, and `queued` for those still in a job.
    static func states(_ harness: DeliveryHarness) async throws -> [String: Int] {
        let rows = try await harness.app.services.database.query("""
            SELECT state, count(*)::int AS n FROM deliveries GROUP BY state
            UNION ALL
            SELECT 'queued', sum(cardinality(subscription_ids))::int FROM delivery_jobs HAVING count(*) > 0
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("state", as: String.self), try $0.decode("n", as: Int.self)) })
    }

    /// A turn that leases a job of the urgent lane runs it before expanding a page of a bulk
    /// notification due meanwhile: the Live Activity start goes out first, the page comes on
    /// the next turn.
    @Test func anUrgentJobGoesOutBeforeABulkPageIsExpanded() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await Self.startableDevice(harness, pts: String(repeating: "4b", count: 32))
        let notification = await harness.app.request(
            .post, "/notifications", headers: .restKey(harness.created.restKey),
            json: ["app_id": .string(harness.created.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": "bulk"]])
        #expect(notification.status == 200)
        #expect(await Self.start(harness).status == 201)
        // The start's one push, and no page (a page expanded would count one more).
        #expect(try await harness.engine.runOnce() == 1)
        #expect(harness.simulator.accepted().map { $0.header("apns-push-type") } == ["liveactivity"])
        let bulkJobs: PostgresQuery = "SELECT count(*)::int AS n FROM delivery_jobs WHERE lane = \(DeliveryLane.bulk.rawValue)"
        #expect(try await harness.app.services.database.query(bulkJobs).firstRow().decode("n", as: Int.self) == 0)
        // Next turn: nothing to lease, so the page; then its push.
        #expect(try await harness.engine.runOnce() == 1)
        #expect(try await harness.app.services.database.query(bulkJobs).firstRow().decode("n", as: Int.self) == 1)
        try await harness.drain()
        #expect(harness.simulator.accepted().map { $0.header("apns-push-type") } == ["liveactivity", "alert"])
    }

    /// A push-to-start token replaced or removed after the start was queued is not sent to:
    /// the stop sticks (recorded `Unregistered`); a device that kept its token gets its start.
    @Test func aPushToStartTokenGoneSinceTheStartWasQueuedIsNotSentTo() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let kept = String(repeating: "1b", count: 32)
        _ = try await Self.startableDevice(harness, token: String(repeating: "0a", count: 32), pts: kept)
        let replaced = try await Self.startableDevice(harness, token: String(repeating: "0b", count: 32), pts: String(repeating: "2b", count: 32))
        let removed = try await Self.startableDevice(harness, token: String(repeating: "0c", count: 32), pts: String(repeating: "3b", count: 32))
        #expect(await Self.start(harness).status == 201)
        try await harness.app.services.database.query("""
            UPDATE push_to_start_tokens SET token = \(String(repeating: "4b", count: 32)) WHERE subscription_id = \(replaced)
            """)
        try await harness.app.services.database.query("DELETE FROM push_to_start_tokens WHERE subscription_id = \(removed)")
        #expect(try await harness.drain() == 3)
        #expect(harness.simulator.accepted().map(\.deviceToken) == [kept])
        let reasons = try await harness.app.services.database.query("""
            SELECT subscription_id, state, error_reason FROM deliveries ORDER BY subscription_id
            """).map { "\(try $0.decode("state", as: String.self)) \(try $0.decode("error_reason", as: String?.self) ?? "")" }
        #expect(reasons.sorted() == ["accepted ", "error Unregistered", "error Unregistered"])
    }

    @Test func aStartReachesAPNsWithTheRightHeadersAndPayload() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let pts = String(repeating: "1b", count: 32)
        _ = try await Self.startableDevice(harness, pts: pts, tags: ["first_name": "Ana"])
        let response = await Self.start(harness, headings: "Hi {{ first_name | default: 'there' }}")
        let messageID = try #require(response.json?.objectValue?["notification_id"]?.stringValue)
        #expect(try await harness.drain() == 1)
        #expect(try await Self.states(harness) == ["accepted": 1])
        let pushes = harness.simulator.accepted()
        let push = try #require(pushes.first)
        #expect(pushes.count == 1)
        #expect(push.deviceToken == pts)
        #expect(push.header("apns-push-type") == "liveactivity")
        #expect(push.header("apns-topic") == DeliveryHarness.bundleID + ".push-type.liveactivity")
        #expect(push.header("apns-priority") == "10")
        let apnsID = try await harness.app.services.database.query("SELECT \(DeliveryRecord.storedAPNSID)::text AS id FROM deliveries").firstRow().decode("id", as: String.self)
        #expect(push.apnsID.lowercased() == apnsID.lowercased())
        let aps = try #require(push.payloadJSON?.objectValue?["aps"]?.objectValue)
        #expect(aps["event"] == "start")
        #expect(aps["attributes-type"] == .string(Self.type))
        #expect(aps["input-push-token"] == 1)
        #expect(aps["alert"]?.objectValue?["title"] == "Hi Ana")
        #expect(aps["attributes"]?.objectValue?["openpush"] == ["notification_id": .string(messageID), "activity_id": "order-1"])
        #expect(aps["content-state"]?.objectValue?["status"] == "out")
        let view = await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": harness.created.app.id])
        #expect(view.json?.objectValue?["successful"] == 1)
        #expect(view.json?.objectValue?["remaining"] == 0)
    }

    @Test func updatesAndEndsGoToTheUpdateTokenWithIncreasingTimestamps() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await harness.app.insertSubscription(appID: appID, token: Self.deviceToken)
        let updateToken = String(repeating: "2c", count: 32)
        let registered = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities", headers: .sdkKey(harness.created.sdkKey),
                                                   json: ["token": .string(Self.deviceToken), "activity_id": "game-7",
                                                          "activity_type": "Score", "update_token": .string(updateToken)])
        #expect(registered.status == 200)
        // Every update is to go (no coalescing, `PushIntervalsTests` covers it), in order.
        try await harness.app.services.database.query("UPDATE apps SET live_activity_update_interval_seconds = 0 WHERE id = \(appID)")
        let path = "/apps/\(appID)/live_activities/game-7/notifications"
        for event in ["update", "update", "end"] {
            let response = await harness.app.request(.post, path, headers: .restKey(harness.created.restKey),
                                                     json: ["event": .string(event), "name": "n", "event_updates": ["home": 1]])
            #expect(response.status == 201)
            try await harness.drain()
        }
        let pushes = harness.simulator.accepted()
        #expect(pushes.map(\.deviceToken) == [updateToken, updateToken, updateToken])
        #expect(pushes.map { $0.header("apns-priority") } == ["5", "5", "10"])
        let timestamps = pushes.compactMap { $0.payloadJSON?.objectValue?["aps"]?.objectValue?["timestamp"]?.intValue }
        #expect(timestamps.count == 3)
        #expect(timestamps == timestamps.sorted() && Set(timestamps).count == 3, "\(timestamps)")
        #expect(pushes.last?.payloadJSON?.objectValue?["aps"]?.objectValue?["event"] == "end")
    }

    /// A job reads its devices' tokens when it runs: a device that registered a new token after
    /// the notification was queued gets it there, and nothing goes to the old one; a device
    /// whose token died meanwhile gets nothing (`Unregistered`). A job queued before device jobs
    /// stopped holding tokens (migration 0043) is read the same way.
    @Test func aDeviceTokenReplacedSinceTheSendWasQueuedGetsThePushOnTheNewOne() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let (old, new, dying) = (String(repeating: "0b", count: 32), String(repeating: "0c", count: 32), String(repeating: "0d", count: 32))
        let moved = try await harness.app.insertSubscription(appID: appID, token: old)
        let dead = try await harness.app.insertSubscription(appID: appID, token: dying)
        let notification = await harness.app.request(
            .post, "/notifications", headers: .restKey(harness.created.restKey),
            json: ["app_id": .string(appID), "included_segments": ["Subscribed Users"], "contents": ["en": "hello"]])
        #expect(notification.status == 200)
        // The page is expanded into a job; the devices change before it runs.
        #expect(try await harness.engine.runOnce() == 1)
        let database = harness.app.services.database
        #expect(try await database.query("SELECT cardinality(tokens) AS n FROM delivery_jobs").firstRow().decode("n", as: Int.self) == 0)
        try await database.query("UPDATE subscriptions SET token = \(new) WHERE id = \(moved)")
        try await database.query("UPDATE subscriptions SET token_invalid_at = now() WHERE id = \(dead)")
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [new])
        let states = try await database.query("""
            SELECT subscription_id, state, error_reason FROM deliveries ORDER BY subscription_id
            """).map { "\(try $0.decode("subscription_id", as: String.self)):\(try $0.decode("state", as: String.self))"
                       + ":\(try $0.decode("error_reason", as: String?.self) ?? "")" }
        #expect(Set(states) == ["\(moved):accepted:", "\(dead):error:Unregistered"])

        // A job written before 0043, holding the token read at the send: the new token is used.
        harness.simulator.clearAccepted()
        let message = try await database.query("SELECT id FROM messages").firstRow().decode("id", as: String.self)
        try await database.query("""
            INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, subscription_ids, tokens)
            VALUES (\(message), \(appID), \(DeliveryLane.bulk.rawValue), 'device', ARRAY[\(moved)], ARRAY[\(old)])
            """)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [new])
    }

    @Test func deadTokensAreHandledByKind() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        // A push-to-start token APNs calls dead is deleted.
        _ = try await Self.startableDevice(harness, pts: "dead" + String(repeating: "0", count: 60))
        _ = await Self.start(harness)
        try await harness.drain()
        let remaining = try await harness.app.services.database.query("SELECT count(*)::int AS n FROM push_to_start_tokens")
        #expect(try remaining[0].decode("n", as: Int.self) == 0)
        let reason = try await harness.app.services.database.query("SELECT state, error_reason FROM deliveries").firstRow()
        #expect(try reason.decode("state", as: String.self) == "error")
        #expect(try reason.decode("error_reason", as: String?.self) == "Unregistered")
        // A bad update token ends only its activity; the device stays reachable.
        let token = String(repeating: "3d", count: 32)
        let subscription = try await harness.app.insertSubscription(appID: appID, token: token)
        _ = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities", headers: .sdkKey(harness.created.sdkKey),
                                      json: ["token": .string(token), "activity_id": "a", "update_token": .string("bad0" + String(repeating: "1", count: 60))])
        _ = await harness.app.request(.post, "/apps/\(appID)/live_activities/a/notifications", headers: .restKey(harness.created.restKey),
                                      json: ["event": "update", "name": "n", "event_updates": ["x": 1]])
        try await harness.drain()
        let row = try await harness.app.services.database.query("""
            SELECT la.ended_reason, s.retired_at IS NULL AS reachable, s.token_invalid_at IS NULL AS valid
            FROM live_activities la JOIN subscriptions s ON s.id = la.subscription_id WHERE s.id = \(subscription)
            """).firstRow()
        #expect(try row.decode("ended_reason", as: String?.self) == "dead_token")
        #expect(try row.decode("reachable", as: Bool.self))
        #expect(try row.decode("valid", as: Bool.self))
    }

    @Test func passingFailuresAreRetriedWithBackoffThenGiveUp() async throws {
        // Retries wait an hour, so the row is seen waiting however loaded the machine; the test
        // makes each due in turn.
        var settings = DeliveryHarness.quickSettings()
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        _ = try await Self.startableDevice(harness, pts: "5000" + String(repeating: "2", count: 60))
        _ = await Self.start(harness)
        let before: Double = try await harness.app.services.database.query("SELECT extract(epoch FROM now())::float8 AS t").firstRow()
            .decode("t")
        try await harness.drain()
        // Nothing is recorded yet: the device waits in a retry job on its second attempt.
        #expect(try await Self.states(harness) == ["queued": 1])
        let retry = try await harness.app.services.database.query("""
            SELECT attempt, due_at >= to_timestamp(\(before + 1.5)) AS later FROM delivery_jobs
            """).firstRow()
        #expect(try retry.decode("attempt", as: Int.self) == 2)
        #expect(try retry.decode("later", as: Bool.self))
        // Three attempts at most, then the device is recorded in error with the last reason.
        let deadline = ContinuousClock.now + .seconds(120)
        while try await Self.states(harness)["error"] == nil, ContinuousClock.now < deadline {
            try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE due_at > now()")
            try await harness.drain()
            try await Task.sleep(for: .milliseconds(100))
        }
        let last = try await harness.app.services.database.query("SELECT state, attempts, error_reason FROM deliveries").firstRow()
        #expect(try last.decode("state", as: String.self) == "error")
        #expect(try last.decode("attempts", as: Int.self) == 3)
        #expect(try last.decode("error_reason", as: String?.self) == "InternalServerError")
    }

    @Test func aRetryCarriesTheSameAPNSID() async throws {
        var settings = DeliveryHarness.quickSettings()
        // The retry waits an hour: it runs only when made due below, after the behaviour changes.
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        _ = try await Self.startableDevice(harness, pts: "5030" + String(repeating: "2", count: 60))
        _ = await Self.start(harness)
        try await harness.drain()
        // The simulator answered 503 for this prefix; let the retry through.
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE due_at > now()")
        let deadline = ContinuousClock.now + .seconds(40)
        while try await Self.states(harness)["accepted"] == nil, ContinuousClock.now < deadline {
            try await harness.drain()
            try await Task.sleep(for: .milliseconds(50))
        }
        let record = try await harness.app.services.database.query("SELECT \(DeliveryRecord.storedAPNSID)::text AS id, attempts FROM deliveries").firstRow()
        #expect(try record.decode("attempts", as: Int.self) == 2)
        let accepted = try #require(harness.simulator.accepted().first)
        #expect(accepted.apnsID.lowercased() == (try record.decode("id", as: String.self)))
    }

    @Test func rejectedCredentialsPauseTheAppUntilTheyAreFixed() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let organizationKey = "org-key-for-delivery-tests"
        let admin = try TestApp.make(conninfo: harness.app.conninfo, configure: { $0.organizationAPIKey = organizationKey })
        let appID = harness.created.app.id
        // A key the simulator has never heard of.
        let unknownPEM = try P256SigningKey.generatePEM()
        _ = await admin.request(.put, "/apps/\(appID)", headers: ["Authorization": "Key \(organizationKey)"],
                                json: ["apns_p8": .string(unknownPEM), "apns_key_id": "UNKNOWNKEY"])
        _ = try await Self.startableDevice(harness, pts: String(repeating: "4e", count: 32))
        _ = await Self.start(harness)
        try await harness.drain()
        let shown = await admin.request(.get, "/apps/\(appID)", headers: ["Authorization": "Key \(organizationKey)"])
        let status = try #require(shown.json?.objectValue?["apns_status"]?.objectValue)
        #expect(status["state"] == "paused")
        #expect(status["reason"] == "InvalidProviderToken")
        #expect(try await Self.states(harness) == ["queued": 1])
        #expect(try await harness.drain() == 0, "a paused app's rows wait")
        // The original credentials again: deliveries resume.
        _ = await admin.request(.put, "/apps/\(appID)", headers: ["Authorization": "Key \(organizationKey)"],
                                json: ["apns_p8": .string(harness.p8), "apns_key_id": "KEYID00001"])
        try await harness.drain()
        #expect(try await Self.states(harness) == ["accepted": 1])
        let resumed = await admin.request(.get, "/apps/\(appID)", headers: ["Authorization": "Key \(organizationKey)"])
        #expect(resumed.json?.objectValue?["apns_status"]?.objectValue?["state"] == "ok")
    }

    @Test func goAwayMidBatchLosesNothing() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await harness.app.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
                SELECT 'sub_g' || i, \(appID), 'aa' || md5('g' || i) || md5('h' || i), now(), now() FROM generate_series(1, 300) AS i
                """)
            try connection.query("""
                INSERT INTO push_to_start_tokens (id, app_id, subscription_id, activity_type, token)
                SELECT 'pts_g' || i, \(appID), 'sub_g' || i, \(Self.type), 'aa' || md5('p' || i) || md5('q' || i) FROM generate_series(1, 300) AS i
                """)
        }
        harness.simulator.goAway(afterStreams: 70)
        #expect(await Self.start(harness).status == 201)
        let deadline = ContinuousClock.now + .seconds(120)
        while try await Self.states(harness)["accepted"] ?? 0 < 300, ContinuousClock.now < deadline {
            try await harness.drain()
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await Self.states(harness) == ["accepted": 300])
        #expect(Set(harness.simulator.accepted().map(\.deviceToken)).count == 300)
    }

    @Test func aDeliveryOlderThanADayIsNotSent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await Self.startableDevice(harness, pts: String(repeating: "5f", count: 32))
        _ = await Self.start(harness)
        try await harness.app.services.database.query("UPDATE delivery_jobs SET created_at = now() - interval '25 hours'")
        try await harness.drain()
        let row = try await harness.app.services.database.query("SELECT state, error_reason FROM deliveries").firstRow()
        #expect(try row.decode("error_reason", as: String?.self) == "Expired")
        #expect(harness.simulator.accepted().isEmpty)
    }

    /// An idle loop sleeps ten minutes here, so a push within the test's seconds can only have been woken
    /// by the NOTIFY: this fails when the LISTEN connection or the NOTIFY is broken.
    @Test func theRunningEngineDeliversOnNotifyAndReportsMetrics() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.idleWake = .seconds(600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        _ = try await Self.startableDevice(harness, pts: String(repeating: "6a", count: 32))
        harness.engine.start()
        try #require(try await Self.waitForListener(harness), "the delivery engine never LISTENed")
        #expect(await Self.start(harness).status == 201)
        // Far below the ten-minute idle sleep, and far above what a loaded machine needs.
        let deadline = ContinuousClock.now + .seconds(60)
        while try await Self.states(harness)["accepted"] == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await Self.states(harness) == ["accepted": 1])
        try await Maintenance.refreshMetrics(harness.app.services)
        let metrics = await harness.app.request(.get, "/metrics")
        #expect(metrics.text.contains(#"openpush_pushes_total{kind="push_to_start",state="accepted",reason="",service="apns"} 1"#))
        #expect(metrics.text.contains(#"openpush_delivery_latency_seconds_count{service="apns"} 1"#))
        #expect(metrics.text.contains("openpush_delivery_queue_depth 0"))
        let connections = metrics.text.split(separator: "\n").first { $0.hasPrefix("openpush_apns_connections_open ") }
        #expect((connections?.split(separator: " ").last).flatMap { Int($0) } ?? 0 >= 1)
        #expect(metrics.text.contains("openpush_apns_streams_in_flight 0"))
    }

    /// Whether a session of the test's database is LISTENing on the delivery channel (within 120 s).
    static func waitForListener(_ harness: DeliveryHarness) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let listening = try await harness.app.services.database.query("""
                SELECT 1 FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                  AND query LIKE \("LISTEN " + PostgresQuery.quoteIdentifier(MessageStore.deliveryChannel) + "%")
                """)
            if !listening.isEmpty { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
