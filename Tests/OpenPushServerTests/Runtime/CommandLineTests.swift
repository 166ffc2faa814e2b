import Foundation
import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushTestSupport
import OpenPushServer
import Postgres

/// The executable as an operator runs it: configuration errors, migrations, signals.
@Suite struct CommandLineTests {
    @Test func helpListsCommandsAndVariables() async throws {
        let output = try await OpenPushProcess.run(["--help"])
        #expect(output.status == 0)
        for word in ["serve", "migrate", "dev", "--no-migrate", "OPENPUSH_DATABASE_URL", "OPENPUSH_LISTEN",
                     "OPENPUSH_ORG_API_KEY", "OPENPUSH_DB_POOL_SIZE", "OPENPUSH_LOG_LEVEL"] {
            #expect(output.text.contains(word), "help does not mention \(word)")
        }
    }

    @Test(arguments: ["OPENPUSH_DB_POOL_SIZE=many", "OPENPUSH_LISTEN=nowhere", "OPENPUSH_LOG_LEVEL=chatty",
                      "OPENPUSH_SECRET_KEY=too-short", "OPENPUSH_SECRET_KEYS_OLD=abc"])
    func aBadVariableIsOneLineAndExitCode2(_ assignment: String) async throws {
        let parts = assignment.split(separator: "=").map(String.init)
        let variable = parts[0]
        let output = try await OpenPushProcess.run(["serve"], environment: [variable: parts[1]])
        #expect(output.status == 2)
        let lines = output.text.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(variable) == true)
    }

    /// `openpush dev` logs which database it uses, never the password in OPENPUSH_DATABASE_URL.
    @Test func devNeverLogsTheDatabasePassword() async throws {
        let database = try await TestDatabase.create()
        let directory = try TemporaryDirectory.make(prefix: "dev-redact")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secret = "hunter2-\(Int.random(in: 100_000...999_999))"
        let dev = try OpenPushProcess(["dev"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo + " password=\(secret)", "OPENPUSH_LISTEN": "127.0.0.1:0",
        ], workingDirectory: directory)
        _ = try await dev.waitForLog("try: curl ")
        dev.signal(SIGTERM)
        #expect(try await dev.waitForExit() == 0)
        #expect(dev.log.contains("using OPENPUSH_DATABASE_URL"))
        #expect(dev.log.contains("password=\(RedactedConninfo.mask)"))
        #expect(!dev.log.contains(secret))
    }

    /// `serve` without OPENPUSH_SECRET_KEY starts and warns; `secrets rotate` then seals what
    /// is stored in clear with the key it is given, and says with which.
    @Test func serveWarnsWithoutASecretKeyAndSecretsRotateSealsWithIt() async throws {
        let database = try await TestDatabase.create()
        let server = try OpenPushProcess(["serve", "--no-migrate"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ])
        _ = try await server.waitForPort()
        _ = try await server.waitForLog("OPENPUSH_SECRET_KEY is not set")
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)

        let pool = database.makePool(size: 1)
        let created = try await AppStore.create(AppSettings(name: "Clear", apnsP8: "-----BEGIN PRIVATE KEY-----x"),
                                                now: WallClock.now(), in: pool)
        let key = String(repeating: "7f", count: 32)
        let rotate = try await OpenPushProcess.run(["secrets", "rotate"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_SECRET_KEY": key,
        ])
        let keyID = try #require(SecretKeyring.parseKey(key)).id
        #expect(rotate.status == 0, "\(rotate.text)")
        #expect(rotate.text.contains("sealed with key \(keyID): 1 .p8 key(s)"), "\(rotate.text)")
        let stored: String = try await pool.query("SELECT apns_p8 FROM apps WHERE id = \(created.app.id)").firstRow().decode("apns_p8")
        #expect(stored.hasPrefix("sealed:v1:\(keyID):"))
        await pool.close()
        // Without a key there is nothing to seal with: exit code 2, one line.
        let refused = try await OpenPushProcess.run(["secrets", "rotate"], environment: ["OPENPUSH_DATABASE_URL": database.conninfo])
        #expect(refused.status == 2)
        #expect(refused.text.contains("OPENPUSH_SECRET_KEY is not set"))
    }

    @Test func serveWithoutADatabaseURLIsExitCode2() async throws {
        let output = try await OpenPushProcess.run(["serve"])
        #expect(output.status == 2)
        #expect(output.text.contains("OPENPUSH_DATABASE_URL"))
    }

    @Test func serveNoMigrateThenMigrateThenGracefulStop() async throws {
        let database = try await TestDatabase.create()
        let empty = try await database.createEmptySibling()
        let server = try OpenPushProcess(["serve", "--no-migrate"], environment: [
            "OPENPUSH_DATABASE_URL": empty, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ])
        let port = try await server.waitForPort()
        #expect(try await Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 503)

        let migrate = try await OpenPushProcess.run(["migrate"], environment: ["OPENPUSH_DATABASE_URL": empty])
        #expect(migrate.status == 0, "\(migrate.text)")
        #expect(try await Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 200)

        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        #expect(server.log.contains("stopped"))
    }

    @Test func serveMigratesAtStart() async throws {
        let database = try await TestDatabase.create()
        let empty = try await database.createEmptySibling()
        let server = try OpenPushProcess(["serve"], environment: [
            "OPENPUSH_DATABASE_URL": empty, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ])
        // It listens only after applying every migration to the empty database: minutes, under load.
        let port = try await server.waitForPort(timeout: .seconds(120))
        #expect(try await Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 200)
        server.signal(SIGINT)
        #expect(try await server.waitForExit() == 0)
    }

    /// A deployment of workers alone still keeps the delivery record partitions.
    @Test func aWorkerKeepsTheDeliveryPartitions() async throws {
        let app = try await TestApp.make()
        let partition: String = try await app.services.database.query("""
            SELECT 'deliveries_' || to_char((now() AT TIME ZONE 'UTC')::date + 2, 'YYYYMMDD') AS name
            """).firstRow().decode("name")
        let exists = { () async throws -> Bool in
            try await app.services.database.query("SELECT to_regclass(\(partition)) IS NOT NULL AS present").firstRow().decode("present")
        }
        try await app.services.database.query("DROP TABLE \(identifier: partition)")
        #expect(try await !exists())
        let worker = try OpenPushProcess(["worker"], environment: ["OPENPUSH_DATABASE_URL": app.conninfo])
        let deadline = ContinuousClock.now + .seconds(120)
        while try await !exists(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try await exists(), "the worker's maintenance pass creates the coming days' partitions")
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
    }
}
