import Foundation
import Postgres
import Synchronization
import Subprocess
#if canImport(Glibc)
import Glibc
#endif

/// Debian's `pgbouncer` (1.18) in front of a PostgreSQL server, in `pool_mode = transaction`,
/// on a free port of 127.0.0.1, with its configuration in a temporary directory. Few server
/// connections (`poolSize`), so that consecutive transactions of one client really do run on
/// different server connections. `stop()` and `start()` again keep the port.
package final class PgBouncer: Sendable {
    package static let executable = "/usr/sbin/pgbouncer"

    package let port: Int
    package let directory: String
    private let child: Mutex<Subprocess?>

    /// `upstream`: the server's conninfo (a Unix socket or TCP, trust authentication, as the
    /// test clusters are).
    package init(upstream: String, poolSize: Int = 4) throws {
        let values = Dictionary(try PostgresConnection.conninfoValues(upstream).map { ($0.key, $0.value) }) { $1 }
        guard let host = values["host"], let serverPort = values["port"] else {
            throw Subprocess.Failure("pgbouncer needs the upstream host and port, got \(upstream)")
        }
        let user = values["user"] ?? "postgres"
        directory = try TemporaryDirectory.make(prefix: "openpush-pgbouncer")
        guard let free = PostgresCluster.freeLocalPort() else { throw Subprocess.Failure("cannot find a free port for pgbouncer") }
        port = free
        child = Mutex(nil)
        let configuration = """
            [databases]
            * = host=\(host) port=\(serverPort)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(directory)/users.txt
            pool_mode = transaction
            default_pool_size = \(poolSize)
            min_pool_size = 0
            reserve_pool_size = 0
            max_client_conn = 1000
            max_db_connections = \(poolSize)
            server_reset_query =
            server_check_delay = 0
            ignore_startup_parameters = extra_float_digits
            admin_users = \(user)
            log_connections = 0
            log_disconnections = 0

            """
        try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        try "\"\(user)\" \"\"\n".write(toFile: directory + "/users.txt", atomically: true, encoding: .utf8)
        for file in [configurationPath, directory + "/users.txt"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        }
    }

    deinit {
        if let child = child.withLock({ $0 }), child.isRunning {
            child.signal(SIGKILL)
            _ = try? child.waitForExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private var configurationPath: String { directory + "/pgbouncer.ini" }

    /// `host=127.0.0.1 port=<port> user=<user> dbname=<database>` of `conninfo`, through this pgbouncer.
    package func conninfo(through conninfo: String) throws -> String {
        try PostgresConnection.conninfo(conninfo, replacing: ["host": "127.0.0.1", "port": String(port)])
    }

    /// Starts pgbouncer (as the `postgres` user when this process is root: it refuses root) and
    /// waits until it accepts connections.
    package func start(timeout: Duration = .seconds(20)) async throws {
        let arguments = (getuid() == 0 ? ["-u", "postgres"] : []) + [configurationPath]
        let process = try Subprocess(Self.executable, arguments, environment: [:])
        child.withLock { $0 = process }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if process.output.contains("process up") { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Subprocess.Failure("pgbouncer did not start:\n\(process.output)")
    }

    /// Kills pgbouncer (`SIGKILL`: it goes away, as a crashed host would) and reaps it.
    package func stop() {
        guard let process = child.withLock({ state -> Subprocess? in defer { state = nil }; return state }) else { return }
        process.signal(SIGKILL)
        _ = try? process.waitForExit()
    }

    /// What pgbouncer logged so far (for a failing test's message).
    package var log: String { child.withLock { $0 }?.output ?? "" }
}
