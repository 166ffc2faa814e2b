import Foundation
import Testing
import OpenPushCore
import OpenPushTestSupport
import Postgres

/// The executable as an operator runs it: configuration errors, migrations, signals.
@Suite struct CommandLineTests {
    @Test func helpListsCommandsAndVariables() throws {
        let output = try ChildProcess.run(OpenPushProcess.executablePath, ["--help"])
        #expect(output.status == 0)
        for word in ["serve", "migrate", "dev", "--no-migrate", "OPENPUSH_DATABASE_URL", "OPENPUSH_LISTEN",
                     "OPENPUSH_ORG_API_KEY", "OPENPUSH_DB_POOL_SIZE", "OPENPUSH_LOG_LEVEL"] {
            #expect(output.standardOutput.contains(word), "help does not mention \(word)")
        }
    }

    @Test(arguments: ["OPENPUSH_DB_POOL_SIZE=many", "OPENPUSH_LISTEN=nowhere", "OPENPUSH_LOG_LEVEL=chatty"])
    func aBadVariableIsOneLineAndExitCode2(_ assignment: String) throws {
        let output = try ChildProcess.run("env", [assignment, OpenPushProcess.executablePath, "serve"])
        let variable = String(assignment.split(separator: "=")[0])
        #expect(output.status == 2)
        let lines = output.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(variable) == true)
    }

    @Test func serveWithoutADatabaseURLIsExitCode2() throws {
        let output = try ChildProcess.run("env", ["-u", "OPENPUSH_DATABASE_URL", OpenPushProcess.executablePath, "serve"])
        #expect(output.status == 2)
        #expect(output.standardError.contains("OPENPUSH_DATABASE_URL"))
    }

    @Test func serveNoMigrateThenMigrateThenGracefulStop() async throws {
        let database = try await TestDatabase.create()
        let empty = try await database.createEmptySibling()
        let server = try OpenPushProcess(["serve", "--no-migrate"], environment: [
            "OPENPUSH_DATABASE_URL": empty, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ])
        let port = try await server.waitForPort()
        #expect(try Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 503)

        let migrate = try ChildProcess.run("env", ["OPENPUSH_DATABASE_URL=\(empty)", "OPENPUSH_RESOURCES_DIR=\(TestApp.repositoryRoot)",
                                                    OpenPushProcess.executablePath, "migrate"])
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(try Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 200)

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
        let port = try await server.waitForPort()
        #expect(try Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 200)
        server.signal(SIGINT)
        #expect(try await server.waitForExit() == 0)
    }
}
