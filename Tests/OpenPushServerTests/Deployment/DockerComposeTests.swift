import Foundation
import Testing
import OpenPushTestSupport

/// No container engine runs here, so `docker-compose.yml` and its PgBouncer configuration are
/// checked as text: the scale-out deployment `docs/operating/scale-out.md` describes, wired as the
/// scale-out suite runs it.
@Suite struct DockerComposeTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: TestApp.repositoryRoot + "/" + path, encoding: .utf8)
    }

    /// The lines of the top-level `services:` entry `name`, up to the next entry.
    static func service(_ name: String, in compose: String) -> [Substring] {
        let lines = compose.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring("  \(name):")) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { !$0.isEmpty && !$0.hasPrefix("   ") } ?? lines.endIndex
        return Array(lines[start..<end])
    }

    @Test func postgresPgBouncerTwoServersAndTwoWorkers() throws {
        let compose = try Self.read("docker-compose.yml")
        #expect(Self.service("postgres", in: compose).contains { $0.contains("image: postgres:") })
        let bouncer = Self.service("pgbouncer", in: compose)
        #expect(bouncer.contains { $0.contains("./deploy/pgbouncer/pgbouncer.ini:/etc/pgbouncer/pgbouncer.ini") })
        // Every OpenPush service builds the repository's Dockerfile and shares one environment.
        #expect(compose.contains("x-openpush: &openpush\n  build: .\n"))
        for (name, command) in [("serve-1", "serve"), ("serve-2", "serve"), ("worker-1", "worker"), ("worker-2", "worker")] {
            let lines = Self.service(name, in: compose)
            #expect(lines.contains("    <<: *openpush"), "\(name)")
            #expect(lines.contains("    command: [\"\(command)\"]"), "\(name)")
            #expect(lines.contains("      <<: *openpush-environment"), "\(name)")
        }
        // Servers answer HTTP only; the workers deliver.
        #expect(Self.service("serve-1", in: compose).contains { $0.contains("OPENPUSH_DELIVERY_LOOPS: \"0\"") })
        #expect(compose.contains("  OPENPUSH_DATABASE_URL: postgresql://openpush:openpush@pgbouncer:6432/openpush\n"))
        #expect(compose.contains("  OPENPUSH_DATABASE_DIRECT_URL: postgresql://openpush:openpush@postgres:5432/openpush\n"))
        #expect(compose.contains("  OPENPUSH_RESOURCES_DIR: /usr/share/openpush\n"))
        // Every process seals and opens secrets with the same key.
        #expect(compose.contains("  OPENPUSH_SECRET_KEY: ${OPENPUSH_SECRET_KEY:?"))
    }

    @Test func pgBouncerPoolsTransactionsForTheComposeDatabase() throws {
        let ini = try Self.read("deploy/pgbouncer/pgbouncer.ini")
        let settings = Dictionary(ini.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !line.hasPrefix(";") else { return nil }
            return (parts[0], parts[1])
        }) { $1 }
        #expect(settings["pool_mode"] == "transaction")
        #expect(settings["listen_port"] == "6432")
        #expect(settings["openpush"] == "host=postgres port=5432 dbname=openpush")
        #expect(settings["auth_file"] == "/etc/pgbouncer/userlist.txt")
        #expect(try Self.read("deploy/pgbouncer/userlist.txt").hasPrefix("\"openpush\" "))
    }
}
