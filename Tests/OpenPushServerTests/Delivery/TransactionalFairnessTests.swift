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
/// bench/mixed.sh, in small). APNs is the slow side here — a simulator capped at `rate` pushes a
/// second answers in arrival order — so whatever A has on the wire is a queue B's pushes stand
/// behind. Per-app fairness keeps that queue short: A's jobs in flight are capped below the
/// loops, and a free loop takes the app with the fewest jobs in flight first. Without it every
/// loop holds one of A's jobs, all of A's recipients are on the wire at once, and B's pushes come
/// after nearly all of them. Asserted on the order of acceptance, not on time. Timing group: it
/// needs the rate cap to be the only slow thing.
@Suite struct TransactionalFairnessTests {
    /// The simulator's cap, pushes a second: A's fan-out takes `fanOut / rate` = 20 s.
    static let rate = 100.0
    /// A's recipients: exactly what `loops` jobs of `jobSize` hold, so that without the cap all
    /// of A is on the wire at once.
    static let fanOut = 2000
    /// B's one-user notifications, each to a user of its own with one device.
    static let sends = 10

    static func settings() -> DeliveryEngine.Settings {
        var settings = DeliveryEngine.Settings()
        settings.loops = 8
        settings.jobSize = 250
        // A holds at most 2 × 250 pushes on the wire; 6 loops stay free for other apps.
        settings.appJobsInFlight = 2
        // A job of A waits up to 250 / `rate` s for its answers: its lease must outlast that
        // on a loaded machine without depending on renewals.
        settings.leaseSeconds = 60
        return settings
    }

    /// The harness of `DeliveryHarness`, with a rate-capped simulator and an APNs client with
    /// streams enough for all of A's pushes at once.
    struct Setup {
        let app: TestApp
        let simulator: APNSSimulator
        let client: APNSClient
        let engine: DeliveryEngine
        let a: CreatedApp
        let b: CreatedApp

        static func make() async throws -> Setup {
            let pem = try P256SigningKey.generatePEM()
            let simulator = try APNSSimulator(.init(acceptAnyToken: true, maxRate: TransactionalFairnessTests.rate,
                                                    recordLimit: 10_000))
            try simulator.start()
            let app = try await TestApp.make(configure: {
                $0.apnsProductionURL = simulator.endpoint
                $0.apnsDevelopmentURL = simulator.endpoint
                // The engine's 8 loops and B's requests.
                $0.databasePoolSize = 12
            })
            // 4 × 1,000 streams: A's 2,000 pushes fit on the wire at once, none waits in the
            // client (where the client's own turns between apps would let B pass).
            let client = try APNSClient(configuration: APNSClientConfiguration(
                productionURL: simulator.endpoint, sandboxURL: simulator.endpoint, connectionsPerKey: 4, requestTimeout: 300))
            let engine = DeliveryEngine(services: app.services, client: client, settings: TransactionalFairnessTests.settings(),
                                        logger: .discarding())
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
        let setup = try await Setup.make()
        let database = setup.app.services.database
        try await setup.app.seed("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_a' || lpad(g::text, 8, '0'), \(setup.a.app.id), 'aa' || lpad(to_hex(g), 62, '0'), now(), now()
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

        // A's delivery is under way: its first push was accepted.
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
        await setup.shutdown()
    }
}
