import Foundation
import Testing
import Crypto
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres
import Subprocess

/// A scale-out deployment on one machine, as `docker-compose.yml` describes it: PostgreSQL,
/// pgbouncer in transaction mode in front of it, `serve` processes (HTTP only) and `worker`
/// processes (delivery only) whose pools go through pgbouncer while LISTEN and migrations use
/// the direct URL, and `openpush apns-sim` receiving the pushes. Every piece is a child process.
final class PgBouncerDeployment: Sendable {
    static let keyID = "KEYID00001"
    static let bundleID = "com.example.scale"

    let database: TestDatabase
    let bouncer: PgBouncer
    let created: CreatedApp
    /// A pool of the test's own, straight to PostgreSQL (fixtures and checks).
    let direct: PostgresPool
    let serverURLs: [String]
    let controlURL: String
    let servers: [OpenPushProcess]
    let workers: [OpenPushProcess]
    private let simulator: OpenPushProcess
    private let directory: String

    private init(database: TestDatabase, bouncer: PgBouncer, created: CreatedApp, direct: PostgresPool, serverURLs: [String],
                 controlURL: String, servers: [OpenPushProcess], workers: [OpenPushProcess], simulator: OpenPushProcess,
                 directory: String) {
        self.database = database
        self.bouncer = bouncer
        self.created = created
        self.direct = direct
        self.serverURLs = serverURLs
        self.controlURL = controlURL
        self.servers = servers
        self.workers = workers
        self.simulator = simulator
        self.directory = directory
    }

    /// `servers` × `openpush serve` (no delivery loops) and `workers` × `openpush worker`, each
    /// with a pool of `poolSize` connections, through one pgbouncer holding `serverConnections`.
    static func start(servers serverCount: Int, workers workerCount: Int, poolSize: Int = 6,
                      serverConnections: Int = 4) async throws -> PgBouncerDeployment {
        let database = try await TestDatabase.create()
        let direct = PostgresPool(conninfo: database.conninfo, size: 2)
        let pem = try P256SigningKey.generatePEM()
        let created = try await AppStore.create(AppSettings(name: "Scale", apnsP8: pem, apnsKeyID: keyID,
                                                            apnsTeamID: "TEAM000001", apnsBundleID: bundleID),
                                                now: WallClock.now(), in: direct)
        let directory = try TemporaryDirectory.make(prefix: "openpush-scale")
        let keyPath = directory + "/key.p8"
        try pem.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let simulator = try OpenPushProcess(["apns-sim", "--port", "0", "--control-port", "0", "--key", "\(keyID)=\(keyPath)"],
                                            environment: [:])
        let endpoint = String(try await simulator.waitForLog("APNs simulator listening on ").split(separator: " ").first ?? "")
        let control = try await simulator.waitForLog("control API on ").components(separatedBy: ": ").first ?? ""

        let bouncer = try PgBouncer(upstream: database.conninfo, poolSize: serverConnections)
        try await bouncer.start()
        let environment = [
            "OPENPUSH_DATABASE_URL": try bouncer.conninfo(through: database.conninfo),
            "OPENPUSH_DATABASE_DIRECT_URL": database.conninfo,
            "OPENPUSH_DB_POOL_SIZE": String(poolSize),
            "OPENPUSH_APNS_PRODUCTION_URL": endpoint, "OPENPUSH_APNS_DEVELOPMENT_URL": endpoint,
            // The heavy group starves the simulator (a 20,000-push fan-out at ~150 pushes/s with
            // thousands of streams in flight): a push unanswered for 30 s would be retried and,
            // since the simulator takes it in the end, arrive twice. Exactly once is the claim here.
            "OPENPUSH_APNS_REQUEST_TIMEOUT": "300",
        ]
        let servers = try (0..<serverCount).map { _ in
            try OpenPushProcess(["serve"], environment: environment.merging([
                "OPENPUSH_LISTEN": "127.0.0.1:0", "OPENPUSH_DELIVERY_LOOPS": "0",
            ]) { $1 })
        }
        let workers = try (0..<workerCount).map { _ in
            try OpenPushProcess(["worker"], environment: environment.merging(["OPENPUSH_DELIVERY_LOOPS": "4"]) { $1 })
        }
        var urls: [String] = []
        for server in servers {
            // `http.address=127.0.0.1:<port>`; a loaded machine may take a while to start four processes.
            let address = try await server.waitForLog("http.address=", timeout: .seconds(60)).split(separator: " ").first ?? ""
            urls.append("http://\(address)")
        }
        for worker in workers { _ = try await worker.waitForLog("delivering", timeout: .seconds(60)) }
        return PgBouncerDeployment(database: database, bouncer: bouncer, created: created, direct: direct, serverURLs: urls,
                                   controlURL: control, servers: servers, workers: workers, simulator: simulator,
                                   directory: directory)
    }

    func shutdown() async {
        for child in servers + workers + [simulator] {
            child.signal(SIGTERM)
            _ = try? await child.waitForExit(timeout: .seconds(30))
        }
        bouncer.stop()
        await direct.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every child's output, for a failing test's message.
    var logs: String {
        (servers.enumerated().map { "--- serve \($0.offset)\n\($0.element.log.suffix(3000))" }
         + workers.enumerated().map { "--- worker \($0.offset)\n\($0.element.log.suffix(3000))" }
         + ["--- pgbouncer\n\(bouncer.log.suffix(3000))"]).joined(separator: "\n")
    }

    // MARK: Requests

    func request(_ server: Int, _ method: String, _ path: String, json: JSONValue? = nil,
                 headers: [String: String] = [:]) async throws -> Curl.Result {
        var arguments = ["-X", method]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if let json {
            arguments += ["-H", "Content-Type: application/json", "--data-binary", String(decoding: json.serializedBytes, as: UTF8.self)]
        }
        // Four processes beside the heavy group's other fleets on two cores: a CI run once saw a
        // send take more than 30 s to be answered.
        do {
            return try await Curl.run(arguments + [serverURLs[server] + path], maxTime: 120)
        } catch {
            throw Subprocess.Failure("\(method) \(path) on server \(server): \(error)\n\(logs)")
        }
    }

    var restKeyHeader: [String: String] { ["Authorization": "Key \(created.restKey)"] }

    // MARK: Fixtures and checks

    /// `count` devices with tokens `<prefix>` + 62 hex digits (64 in all), ids `sub_<prefix>_<n>`.
    func insertDevices(_ count: Int, prefix: String) async throws -> Set<String> {
        try await direct.query("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || \(prefix) || '_' || g, \(created.app.id), \(prefix) || lpad(to_hex(g), 62, '0'), now(), now()
            FROM generate_series(1, \(count)) AS g
            """)
        try await direct.query("ANALYZE subscriptions")
        return Set((1...count).map { prefix + String(repeating: "0", count: 62 - String($0, radix: 16).count) + String($0, radix: 16) })
    }

    /// One device with external id `u-0` holding a push-to-start token for `activityType`.
    func insertStartableDevice(activityType: String) async throws {
        try await direct.transaction { [appID = created.app.id] connection in
            try connection.query("""
                INSERT INTO subscriptions (id, app_id, token, external_id, first_session_at, last_session_at)
                VALUES ('sub_start', \(appID), \(String(repeating: "c3", count: 32)), 'u-0', now(), now())
                """)
            try connection.query("""
                INSERT INTO push_to_start_tokens (id, app_id, subscription_id, activity_type, token)
                VALUES ('pts_start', \(appID), 'sub_start', \(activityType), \(String(repeating: "c4", count: 32)))
                """)
        }
    }

    /// What the simulator accepted, as device token → the `apns-id`s it arrived with.
    func acceptedPushes() async throws -> [String: [String]] {
        let response = try await Curl.run([controlURL + "/pushes"])
        let pushes = try #require(try JSONValue.parse(response.body).objectValue?["pushes"]?.arrayValue)
        var byToken: [String: [String]] = [:]
        for push in pushes {
            let object = push.objectValue ?? [:]
            byToken[object["token"]?.stringValue ?? "", default: []].append(object["apns_id"]?.stringValue ?? "")
        }
        return byToken
    }

    func acceptedCount() async throws -> Int {
        let response = try await Curl.run([controlURL + "/pushes?limit=0"])
        return Int(try JSONValue.parse(response.body).objectValue?["accepted_count"]?.intValue ?? -1)
    }

    /// Delivery jobs of the app not completed yet (queued, leased, or waiting for a retry), plus
    /// notifications whose audience is still being expanded.
    func unfinishedWork() async throws -> Int {
        try await direct.query("""
            SELECT (SELECT count(*) FROM delivery_jobs WHERE app_id = \(created.app.id))::int
                 + (SELECT count(*) FROM messages WHERE app_id = \(created.app.id) AND expansion = 'pending')::int AS n
            """).firstRow().decode("n")
    }

    /// Throws unless every one of pgbouncer's server connections holds PostgreSQL's defaults for
    /// what OpenPush sets (timeouts, float digits): what a process sets must end with its
    /// transaction, or it leaks into whichever client runs on that server connection next.
    /// Holds `serverConnections` transactions at once so that each runs on another one; the
    /// scripts run as they are (no per-statement settings in front of them).
    func serverConnectionsHoldTheDefaults(serverConnections: Int = 4) async throws {
        let conninfo = try bouncer.conninfo(through: database.conninfo)
        let connections = try (0..<serverConnections).map { _ in try PostgresConnection.connect(conninfo, scope: .transaction) }
        for connection in connections { try connection.execute(script: "BEGIN") }
        for connection in connections {
            try connection.execute(script: """
                DO $$ BEGIN
                  IF current_setting('statement_timeout') <> '0' OR current_setting('lock_timeout') <> '0'
                     OR current_setting('extra_float_digits') <> '1' THEN
                    RAISE EXCEPTION 'a server connection keeps statement_timeout %, lock_timeout %, extra_float_digits %',
                      current_setting('statement_timeout'), current_setting('lock_timeout'), current_setting('extra_float_digits');
                  END IF;
                END $$
                """)
        }
        for connection in connections { try connection.execute(script: "COMMIT") }
    }

    /// Polls `condition` every 200 ms until it holds or `timeout` passes.
    static func waitUntil(_ timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await condition()
    }
}
