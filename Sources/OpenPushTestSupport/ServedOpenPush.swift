import Crypto
import Foundation
import OpenPushDelivery
package import OpenPushServer
import Postgres

/// OpenPush as an operator runs it, for clients in other processes: `openpush apns-sim` (h2c, the
/// app's provider key checked, its control API on another port) and `openpush serve` delivering
/// to it, both children on ephemeral ports of 127.0.0.1, over a fresh test database holding one
/// app. Children, not in-process servers: a busy test process cannot starve their HTTP and
/// delivery of threads.
package struct ServedOpenPush: Sendable {
    package let created: CreatedApp
    /// `http://127.0.0.1:<port>`, what a OneSignal client takes as its host.
    package let baseURL: String
    /// The simulator's control API (`GET /pushes`, …).
    package let controlURL: String
    private let server: OpenPushProcess
    private let simulator: OpenPushProcess
    private let directory: String

    package static let keyID = "KEYID00001"
    package static let bundleID = "com.example.compat"

    /// `environment` adds to (or overrides) what `openpush serve` is given, e.g. an
    /// `OPENPUSH_ORG_API_KEY` for the organization routes.
    package static func start(environment: [String: String] = [:]) async throws -> ServedOpenPush {
        let database = try await TestDatabase.create()
        let pem = try P256SigningKey.generatePEM()
        let pool = database.makePool(size: 1)
        let created = try await AppStore.create(AppSettings(name: "Compatibility", apnsP8: pem, apnsKeyID: keyID,
                                                            apnsTeamID: "TEAM000001", apnsBundleID: bundleID),
                                                now: WallClock.now(), in: pool)
        await pool.close()
        let directory = try TemporaryDirectory.make(prefix: "openpush-served")
        let keyPath = directory + "/key.p8"
        try pem.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let simulator = try OpenPushProcess(["apns-sim", "--port", "0", "--control-port", "0", "--key", "\(keyID)=\(keyPath)"],
                                            environment: [:])
        let endpoint = try await Self.firstWord(simulator.waitForLog("APNs simulator listening on "))
        // "http://127.0.0.1:N: GET|DELETE /pushes, …"
        let control = try await simulator.waitForLog("control API on ").components(separatedBy: ": ").first ?? ""
        let server = try OpenPushProcess(["serve", "--no-migrate"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0",
            "OPENPUSH_APNS_PRODUCTION_URL": endpoint, "OPENPUSH_APNS_DEVELOPMENT_URL": endpoint,
            "OPENPUSH_APNS_CHANNELS_PRODUCTION_URL": endpoint, "OPENPUSH_APNS_CHANNELS_DEVELOPMENT_URL": endpoint,
            "OPENPUSH_WEBHOOKS_ALLOW_PRIVATE": "1",
        ].merging(environment) { $1 })
        let port = try await server.waitForPort()
        return ServedOpenPush(created: created, baseURL: "http://127.0.0.1:\(port)", controlURL: control, server: server,
                              simulator: simulator, directory: directory)
    }

    private static func firstWord(_ text: String) -> String {
        String(text.split(separator: " ").first ?? "")
    }

    /// What `openpush serve` logged, for a failing test's message.
    package var serverLog: String { server.log }

    package func shutdown() async {
        for child in [server, simulator] {
            child.signal(SIGTERM)
            _ = try? await child.waitForExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
