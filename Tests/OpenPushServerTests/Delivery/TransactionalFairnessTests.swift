import Foundation
import Testing
import APNs
import APNsSimulator
import Crypto
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Issue 39: one app's fan-out must not hold another app's one-user sends (the mixed run of
/// bench/mixed.sh, in small). APNs is slow for A: the simulator answers each of A's pushes only
/// after `slowDelay` (its `5105` token prefix), so each of A's jobs holds its loop that long,
/// while B's pushes are answered at once. Per-app fairness keeps loops free for B: A's jobs in
/// flight are capped below the loops, and a free loop takes the app with the fewest jobs in
/// flight first. Without it every loop holds one of A's jobs, and each of B's jobs waits for a
/// wave of A's to be answered. Asserted on the order of acceptance, not on time.
///
/// Not a rate-capped simulator (`maxRate`): it answers in arrival order across connections, so
/// B's push waits behind whatever A has on the wire, and B's one-device jobs, capped per app too,
/// go out in rounds, each behind A's capped backlog: B's last push then follows `sends × jobSize`
/// of A's whether or not A is capped, which says nothing about the engine's fairness.
@Suite struct TransactionalFairnessTests {
    /// How long the simulator holds each of A's pushes.
    static let slowDelay = Duration.seconds(2)
    /// A's recipients: 20 jobs, more than every loop can hold at once (16 × 100 = 1,600): without
    /// the cap, B's jobs wait for that first wave to be answered.
    static let fanOut = 2000
    /// B's one-user notifications, each to a user of its own with one device.
    static let sends = 10

    static func settings() -> DeliveryEngine.Settings {
        var settings = DeliveryEngine.Settings()
        settings.loops = 16
        settings.jobSize = 100
        // A holds 2 loops (a few more in the first claims, made at once), 14 stay free for others.
        settings.appJobsInFlight = 2
        // A job of A waits `slowDelay` for its answers: its lease outlasts that on a loaded
        // machine without depending on renewals.
        settings.leaseSeconds = 60
        return settings
    }

    /// The harness of `DeliveryHarness`, with a simulator whose slow answers take `slowDelay`
    /// and an APNs client with streams enough for every loop's job at once.
    struct Setup {
        let app: TestApp
        let simulator: APNSSimulator
        let client: APNSClient
        let engine: DeliveryEngine
        let a: CreatedApp
        let b: CreatedApp

        static func make(settings: DeliveryEngine.Settings) async throws -> Setup {
            let pem = try P256SigningKey.generatePEM()
            let simulator = try APNSSimulator(.init(acceptAnyToken: true, slowDelay: TransactionalFairnessTests.slowDelay,
                                                    recordLimit: 10_000))
            try simulator.start()
            let app = try await TestApp.make(configure: {
                $0.apnsProductionURL = simulator.endpoint
                $0.apnsDevelopmentURL = simulator.endpoint
            })
            // 2 × 1,000 streams: 16 jobs of 100 fit on the wire at once with room for B.
            let client = try APNSClient(configuration: APNSClientConfiguration(
                productionURL: simulator.endpoint, sandboxURL: simulator.endpoint, requestTimeout: 300))
            let engine = DeliveryEngine(services: app.services, client: client, settings: settings, logger: .discarding())
            // One team key for both apps, as one company's two apps have: their pushes share
            // the client's connections.
            let a = try await app.createApp(AppSettings(name: "A", apnsP8: pem, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
                                                        apnsBundleID: DeliveryHarness.bundleID))
            let b = try await app.createApp(AppSettings(name: "B", apnsP8: pem, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
                                                        apnsBundleID: DeliveryHarness.bundleID))
            return Setup(app: app, simulator: simulator, client: client, engine: engine, a: a, b: b)
        }

        func shutdown() async {
            await engine.stop()
            await client.shutdown()
            await app.services.apns.shutdown()
            simulator.stop()
        }
    }

    static func bToken(_ n: Int) -> String { "bb" + String(repeating: "0", count: 60) + String(format: "%02x", n) }

    @Test func anotherAppsOneUserSendsPassAFanOutOnASlowAPNs() async throws {
        let setup = try await Setup.make(settings: Self.settings())
        defer { Task { await setup.shutdown() } }
        let database = setup.app.services.database
        try await setup.app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_a' || lpad(g::text, 8, '0'), \(setup.a.app.id), '5105' || lpad(to_hex(g), 60, '0'), now(), now()
            FROM generate_series(1, \(Self.fanOut)) AS g
            """)
        // B's users, one device each, registered as an SDK does.
        for n in 1...Self.sends {
            let registered = await setup.app.registerDevice(setup.b, ["token": .string(Self.bToken(n)), "external_id": .string("b-\(n)")])
            try #require(registered.status == 201, "register: \(registered.text)")
        }
        let fanOut = await setup.app.request(.post, "/notifications", headers: .restKey(setup.a.restKey), json: [
            "app_id": .string(setup.a.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": "Big news"],
        ])
        try #require(fanOut.status == 200, "A's fan-out: \(fanOut.text)")
        setup.engine.start()

        // A's delivery is under way: its first pushes were answered.
        let outer = ContinuousClock.now + .seconds(300)
        while setup.simulator.acceptedCount == 0 {
            try #require(ContinuousClock.now < outer, "A's fan-out never started")
            try await Task.sleep(for: .milliseconds(5))
        }
        // B's sends, one after another, as a shop's backend sends "your order shipped".
        var messages: [String] = []
        for n in 1...Self.sends {
            let sent = await setup.app.request(.post, "/notifications", headers: .restKey(setup.b.restKey), json: [
                "app_id": .string(setup.b.app.id), "include_aliases": ["external_id": [.string("b-\(n)")]],
                "target_channel": "push", "contents": ["en": .string("Order \(n) has shipped")],
            ])
            try #require(sent.status == 200, "B's send \(n): \(sent.text)")
            messages.append(try #require(sent.json?.objectValue?["id"]?.stringValue))
        }
        let bTokens = Set((1...Self.sends).map(Self.bToken))
        var aAcceptedThen = 0
        while true {
            let accepted = setup.simulator.accepted()
            let b = accepted.filter { bTokens.contains($0.deviceToken) }
            if Set(b.map(\.deviceToken)) == bTokens {
                aAcceptedThen = accepted.count - b.count
                break
            }
            try #require(ContinuousClock.now < outer, "B's pushes never all reached APNs (\(b.count) of \(Self.sends))")
            try await Task.sleep(for: .milliseconds(20))
        }
        // B's records say accepted too, each its message's only one.
        while try await database.query("""
            SELECT count(*)::int AS n FROM deliveries WHERE app_id = \(setup.b.app.id) AND state = 'accepted'
            """).firstRow().decode("n", as: Int.self) < Self.sends {
            try #require(ContinuousClock.now < outer, "B's records were never written")
            try await Task.sleep(for: .milliseconds(20))
        }
        let bRecords = try await database.query("""
            SELECT message_id, state FROM deliveries WHERE app_id = \(setup.b.app.id) ORDER BY message_id
            """).map { "\(try $0.decode("message_id", as: String.self)) \(try $0.decode("state", as: String.self))" }
        #expect(bRecords == messages.sorted().map { "\($0) accepted" })
        // B did not wait for A: most of A's recipients were still to be accepted when B's last push was.
        #expect(aAcceptedThen < Self.fanOut / 2,
                "B's last push was accepted after \(aAcceptedThen) of A's \(Self.fanOut): B waited behind A's fan-out")
        print("TransactionalFairnessTests: B's \(Self.sends) sends all accepted after \(aAcceptedThen) of A's \(Self.fanOut) pushes")
    }
}
