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

/// `dedupe_key` and the staleness gate end to end: what the simulator received, each device's
/// record, the claims in PostgreSQL and the view's `suppressed` counts.
@Suite struct AlertGatesTests {
    static func token(_ index: Int, prefix: String = "") -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", index + 1)
    }

    @discardableResult
    static func devices(_ harness: DeliveryHarness, app: CreatedApp? = nil, _ tokens: [String]) async throws -> [String] {
        var ids: [String] = []
        for token in tokens { ids.append(try await harness.app.insertSubscription(appID: (app ?? harness.created).app.id, token: token)) }
        return ids
    }

    static func post(_ harness: DeliveryHarness, as created: CreatedApp? = nil, _ body: JSONObject) async throws -> String {
        let created = created ?? harness.created
        var object: JSONObject = ["app_id": .string(created.app.id), "contents": ["en": "Hello"],
                                  "included_segments": ["Subscribed Users"]]
        for (name, value) in body { object[name] = value }
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(created.restKey), json: .object(object))
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.status) \(response.text)")
    }

    static func view(_ harness: DeliveryHarness, as created: CreatedApp? = nil, _ id: String) async -> JSONObject {
        let created = created ?? harness.created
        return await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(created.restKey),
                                         query: ["app_id": created.app.id]).json?.objectValue ?? [:]
    }

    /// Each device's record of a message: state and reason, by token.
    static func records(_ harness: DeliveryHarness, _ messageID: String) async throws -> [String: String] {
        let rows = try await harness.app.services.database.query("""
            SELECT s.token, d.state || COALESCE(':' || d.error_reason, '') AS record
            FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE d.message_id = \(messageID)
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("token", as: String.self), try $0.decode("record", as: String.self)) })
    }

    /// Pushes the simulator accepted, by token.
    static func pushes(_ harness: DeliveryHarness) -> [String: Int] {
        harness.simulator.accepted().reduce(into: [:]) { $0[$1.deviceToken, default: 0] += 1 }
    }

    static func secondApp(_ harness: DeliveryHarness) async throws -> CreatedApp {
        try await harness.app.createApp(AppSettings(name: "Second", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                    apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
    }

    static func setGates(_ harness: DeliveryHarness, dedupeWindowDays: Int? = nil, staleAlertSeconds: Int? = nil) async throws {
        var fields = AppFields()
        fields.alertGates = AppAlertGateFields(dedupeWindowDays: dedupeWindowDays, staleAlertSeconds: staleAlertSeconds)
        _ = try await AppStore.update(harness.created.app.id, with: fields, now: harness.app.services.now(),
                                      in: harness.app.services.database)
    }

    static func dbNow(_ harness: DeliveryHarness) async throws -> Double {
        try await harness.app.services.database.query("SELECT extract(epoch FROM now())::float8 AS now").firstRow().decode("now")
    }

    // MARK: dedupe

    @Test func aRepeatSendWithTheSameKeyReachesOnlyDevicesNotYetTold() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let told = [Self.token(1), Self.token(2)]
        try await Self.devices(harness, told)
        let first = try await Self.post(harness, ["dedupe_key": "order-7-shipped"])
        try await harness.drain()
        #expect(Self.pushes(harness) == [told[0]: 1, told[1]: 1])
        // A device registered since, then the same alert again: only it is told.
        let newcomer = Self.token(3)
        try await Self.devices(harness, [newcomer])
        let second = try await Self.post(harness, ["dedupe_key": "order-7-shipped"])
        try await harness.drain()
        #expect(Self.pushes(harness) == [told[0]: 1, told[1]: 1, newcomer: 1])
        #expect(try await Self.records(harness, second) == [told[0]: "suppressed:deduplicated", told[1]: "suppressed:deduplicated",
                                                             newcomer: "accepted"])
        let view = await Self.view(harness, second)
        #expect(view["successful"] == 1)
        #expect(view["suppressed"]?.objectValue?["deduplicated"] == 2)
        #expect(view["remaining"] == 0)
        #expect(view["dedupe_key"] == "order-7-shipped")
        #expect(await Self.view(harness, first)["suppressed"]?.objectValue?["deduplicated"] == 0)
        // A background push with the key neither is deduplicated nor claims.
        let background = try await Self.post(harness, ["contents": nil, "content_available": true, "dedupe_key": "order-7-shipped"])
        try await harness.drain()
        #expect(await Self.view(harness, background)["successful"] == 3)
        let claims = try await harness.app.services.database.query("SELECT count(*)::int AS n FROM alert_dedupe_claims")
        #expect(try claims[0].decode("n", as: Int.self) == 3)
    }

    @Test func anotherKeyOrTheSameKeyInAnotherAppIsNotDeduplicated() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await Self.secondApp(harness)
        let mine = Self.token(1)
        let theirs = Self.token(2)
        try await Self.devices(harness, [mine])
        try await Self.devices(harness, app: other, [theirs])
        _ = try await Self.post(harness, ["dedupe_key": "k"])
        try await harness.drain()
        let elsewhere = try await Self.post(harness, as: other, ["dedupe_key": "k"])
        let otherKey = try await Self.post(harness, ["dedupe_key": "k2"])
        try await harness.drain()
        #expect(Self.pushes(harness) == [mine: 2, theirs: 1])
        #expect(await Self.view(harness, as: other, elsewhere)["successful"] == 1)
        #expect(await Self.view(harness, otherKey)["successful"] == 1)
        // Each app's claims are its own: the second app's second send is deduplicated there only.
        let again = try await Self.post(harness, as: other, ["dedupe_key": "k"])
        try await harness.drain()
        #expect(Self.pushes(harness) == [mine: 2, theirs: 1])
        #expect(await Self.view(harness, as: other, again)["suppressed"]?.objectValue?["deduplicated"] == 1)
        let claims = try await harness.app.services.database.query("""
            SELECT app_id, dedupe_key, count(*)::int AS n FROM alert_dedupe_claims GROUP BY 1, 2 ORDER BY 1, 2
            """)
        #expect(claims.count == 3)
    }

    @Test func twoConcurrentSendsWithOneKeyGiveEachDeviceExactlyOnePush() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.jobSize = 4
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let tokens = (0..<24).map { Self.token($0) }
        try await Self.devices(harness, tokens)
        // Two engines over one database, as two processes would be: each claims in PostgreSQL.
        let second = DeliveryEngine(services: harness.app.services, client: harness.client, settings: settings, logger: .discarding())
        defer { Task { await second.stop() } }
        async let a = Self.post(harness, ["dedupe_key": "deploy-42"])
        async let b = Self.post(harness, ["dedupe_key": "deploy-42"])
        let messages = try await [a, b]
        async let drainedA: Void = { while try await harness.engine.runOnce() > 0 {} }()
        async let drainedB: Void = { while try await second.runOnce() > 0 {} }()
        _ = try await (drainedA, drainedB)
        try await harness.drain()
        #expect(Self.pushes(harness) == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }))
        var successful: Int64 = 0
        var deduplicated: Int64 = 0
        for message in messages {
            let view = await Self.view(harness, message)
            successful += view["successful"]?.intValue ?? 0
            deduplicated += view["suppressed"]?.objectValue?["deduplicated"]?.intValue ?? 0
        }
        #expect(successful == 24)
        #expect(deduplicated == 24)
    }

    @Test func aClaimIsGivenBackWhenThePushFailsForGood() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let failing = Self.token(1, prefix: "abad")
        let fine = Self.token(2)
        try await Self.devices(harness, [failing, fine])
        harness.simulator.setBehaviour(APNSSimulator.Behaviour(status: 400, reason: "BadTopic"), forTokenPrefix: "abad")
        let first = try await Self.post(harness, ["dedupe_key": "k"])
        try await harness.drain()
        #expect(try await Self.records(harness, first) == [failing: "error:BadTopic", fine: "accepted"])
        let held = try await harness.app.services.database.query("""
            SELECT s.token FROM alert_dedupe_claims c JOIN subscriptions s ON s.id = c.subscription_id
            """)
        #expect(try held.map { try $0.decode("token", as: String.self) } == [fine])
        // The device that was never told is told by the next send with the key.
        harness.simulator.setBehaviour(nil, forTokenPrefix: "abad")
        let second = try await Self.post(harness, ["dedupe_key": "k"])
        try await harness.drain()
        #expect(try await Self.records(harness, second) == [failing: "accepted", fine: "suppressed:deduplicated"])
        #expect(Self.pushes(harness) == [failing: 1, fine: 1])
    }

    @Test func aRetryOfTheSameMessageKeepsItsClaim() async throws {
        // The retry an hour out, made due by the test: however long a loaded machine's drain
        // takes, it cannot reach the retry while the simulator still answers 503.
        var settings = DeliveryHarness.quickSettings()
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let flaky = Self.token(1, prefix: "5030")
        try await Self.devices(harness, [flaky])
        harness.simulator.setBehaviour(.serviceUnavailable, forTokenPrefix: "5030")
        let message = try await Self.post(harness, ["dedupe_key": "k"])
        try await harness.drain()
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5030")
        #expect(try await Self.records(harness, message).isEmpty)
        // The retry claims again and wins.
        try await DeliveryGuaranteesTests.retriesComeDue(harness)
        try await harness.drain()
        #expect(try await Self.records(harness, message) == [flaky: "accepted"])
        #expect(Self.pushes(harness) == [flaky: 1])
    }

    @Test func claimsPastTheirAppsWindowArePruned() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await Self.secondApp(harness)
        try await Self.setGates(harness, dedupeWindowDays: 2)
        let db = harness.app.services.database
        let now = harness.app.services.now()
        for (app, age) in [(harness.created.app.id, 3.0), (harness.created.app.id, 1.0), (other.app.id, 3.0)] {
            try await db.query("""
                INSERT INTO alert_dedupe_claims (app_id, dedupe_key, subscription_id, message_id, claimed_at)
                VALUES (\(app), 'k', \("sub_\(age)"), 'msg', to_timestamp(\(now - age * 86_400)))
                """)
        }
        let removed = try await Maintenance.runOnce(harness.app.services, now: now)
        #expect(removed.dedupeClaims == 1)
        let left = try await db.query("SELECT app_id FROM alert_dedupe_claims ORDER BY app_id")
        #expect(left.count == 2, "the 1-day claim of the 2-day app and the other app's (30 days) stay")
    }

    // MARK: staleness

    @Test func anOldEventSendsNothingAndEveryDeviceIsRecordedStale() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let tokens = (0..<3).map { Self.token($0) }
        try await Self.devices(harness, tokens)
        let now = harness.app.services.now()
        let message = try await Self.post(harness, ["event_at": .double(now - 3600), "stale_after_seconds": 900])
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        let view = await Self.view(harness, message)
        #expect(view["suppressed"]?.objectValue?["stale"] == 3)
        #expect(view["successful"] == 0)
        #expect(view["stale_after_seconds"] == 900)
        #expect(view["event_at"] == .int(Int64(now - 3600)) || view["event_at"] == .double(now - 3600))
        #expect(Set(try await Self.records(harness, message).values) == ["suppressed:stale"])
    }

    @Test func theAppDefaultLimitHoldsBackOldEventsAndFreshOnesGo() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await Self.setGates(harness, staleAlertSeconds: 600)
        let device = Self.token(1)
        try await Self.devices(harness, [device])
        let now = harness.app.services.now()
        let old = try await Self.post(harness, ["event_at": .string(Timestamp.iso8601(now - 601 - 60))])
        let fresh = try await Self.post(harness, ["event_at": .double(now - 5)])
        let ahead = try await Self.post(harness, ["event_at": .double(now + 3600)])
        let noEvent = try await Self.post(harness, [:])
        // The message's own limit overrides the app's.
        let longer = try await Self.post(harness, ["event_at": .double(now - 661), "stale_after_seconds": 3600])
        try await harness.drain()
        #expect(try await Self.records(harness, old) == [device: "suppressed:stale"])
        for message in [fresh, ahead, noEvent, longer] {
            #expect(try await Self.records(harness, message) == [device: "accepted"])
        }
        #expect(Self.pushes(harness) == [device: 4])
    }

    @Test func aScheduledAlertIsJudgedWhenItsTurnComes() async throws {
        // The application's clock (the one the engine plans by) moves only when told, so no load
        // can carry the alert past its limit early or its send time late.
        let clock = ManualClock(WallClock.now())
        let harness = try await DeliveryHarness.make(now: clock.source)
        defer { Task { await harness.shutdown() } }
        let device = Self.token(1)
        try await Self.devices(harness, [device])
        let now = clock.now()
        // Fresh when it is sent (5 s old of 600), stale by the time it is due an hour later.
        let message = try await Self.post(harness, ["event_at": .double(now - 5), "stale_after_seconds": 600,
                                                    "send_after": .double(now + 3600)])
        try await harness.drain()
        #expect(try await Self.records(harness, message).isEmpty)
        let sendAfter: Double = try await harness.app.services.database.query("""
            SELECT extract(epoch FROM send_after)::float8 AS at FROM messages WHERE id = \(message)
            """).firstRow().decode("at")
        #expect(abs(sendAfter - (now + 3600)) < 1)
        // Its turn comes: the hour passes on the application's clock, and the message is made due
        // in its row (PostgreSQL's clock, which decides what is due, cannot be moved).
        clock.advance(by: 3600)
        try await harness.app.services.database.query("UPDATE messages SET send_after = now() WHERE id = \(message)")
        try await harness.drain()
        #expect(try await Self.records(harness, message) == [device: "suppressed:stale"])
        #expect(harness.simulator.accepted().isEmpty)
    }

    // MARK: app fields

    @Test func theAppFieldsAreShownWithTheirDefaultsAndChangedByPut() async throws {
        let app = try await AppsTestSupport.makeApp()
        let organization = AppsTestSupport.organization
        let created = await app.request(.post, "/apps", headers: organization, json: ["name": "A"])
        let id = try #require(created.json?.objectValue?["id"]?.stringValue)
        #expect(created.json?.objectValue?["dedupe_window_days"] == 30)
        #expect(created.json?.objectValue?["stale_alert_seconds"] == 0)
        let set = await app.request(.post, "/apps", headers: organization,
                                    json: ["name": "B", "dedupe_window_days": 7, "stale_alert_seconds": 900])
        #expect(set.json?.objectValue?["dedupe_window_days"] == 7)
        #expect(set.json?.objectValue?["stale_alert_seconds"] == 900)
        let put = await app.request(.put, "/apps/\(id)", headers: organization, json: ["dedupe_window_days": 365, "stale_alert_seconds": 60])
        #expect(put.status == 200)
        let read = await app.request(.get, "/apps/\(id)", headers: organization)
        #expect(read.json?.objectValue?["dedupe_window_days"] == 365)
        #expect(read.json?.objectValue?["stale_alert_seconds"] == 60)
        let bad = await app.request(.put, "/apps/\(id)", headers: organization,
                                    json: ["dedupe_window_days": 366, "stale_alert_seconds": -1])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["dedupe_window_days must be an integer from 1 to 365",
                                        "stale_alert_seconds must be an integer from 0 to 2592000"]])
        let cleared = await app.request(.put, "/apps/\(id)", headers: organization, json: ["dedupe_window_days": nil])
        #expect(cleared.json == ["errors": ["dedupe_window_days cannot be null"]])
    }

    @Test func wrongNotificationFieldsAreA400NamingThem() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let body: JSONObject = ["app_id": .string(harness.created.app.id), "contents": ["en": "Hi"],
                                "included_segments": ["Subscribed Users"], "dedupe_key": "", "event_at": "soon",
                                "stale_after_seconds": 0]
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(harness.created.restKey), json: .object(body))
        #expect(response.status == 400)
        #expect(response.json == ["errors": [.string(AlertGates.Messages.dedupeKey), .string(AlertGates.Messages.eventAt),
                                             .string(AlertGates.Messages.staleAfterSeconds)]])
    }
}
