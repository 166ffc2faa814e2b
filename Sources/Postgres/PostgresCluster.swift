import Subprocess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster managed with `initdb` and `pg_ctl`, for `openpush dev` and tests.
/// Layout: `<directory>/data`, `<directory>/socket`, `<directory>/port`, `<directory>/postgresql.log`.
/// When running as root, the tools run as the `postgres` OS user (initdb refuses root).
public struct PostgresCluster: Sendable {
    /// How `pg_ctl stop` shuts the server down. A struct so both `.fast` and `"fast"` read well.
    public struct StopMode: RawRepresentable, Sendable, Equatable, ExpressibleByStringLiteral {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        /// Waits for clients to disconnect.
        public static let smart: StopMode = "smart"
        /// Disconnects clients, then shuts down cleanly.
        public static let fast: StopMode = "fast"
        /// Kills the server: crash recovery on the next start.
        public static let immediate: StopMode = "immediate"
    }

    public let directory: String
    public let port: Int
    /// Extra server settings passed as `-c name=value` at start, e.g. `["fsync": "off"]` for tests.
    public var settings: [String: String] = [:]

    public var dataDirectory: String { directory + "/data" }
    public var socketDirectory: String { directory + "/socket" }
    public var logFile: String { directory + "/postgresql.log" }

    public init(directory: String, port: Int? = nil) {
        let directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        self.directory = directory
        let portFile = directory + "/port"
        if let port {
            self.port = port
        } else if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
                  let remembered = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            self.port = remembered
        } else {
            self.port = Self.freeLocalPort() ?? 54_321
            // Errors surface in initializeIfNeeded(), which needs the directory anyway.
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try? "\(self.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
        }
    }

    /// `host=<socket dir> port=<port> user=postgres dbname=postgres`
    public var conninfo: String {
        "host=\(PostgresConnection.quoteConninfoValue(socketDirectory)) port=\(port) user=postgres dbname=postgres"
    }

    /// Runs `initdb` unless the data directory already holds a cluster.
    public func initializeIfNeeded() throws {
        if FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") { return }
        try prepareDirectories()
        _ = try run("initdb", [
            "-D", dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C",
            // A crash during initdb only means running it again, so skip its fsyncs.
            "--no-sync",
        ])
    }

    /// Starts the server listening on the socket directory and 127.0.0.1; a running one is reused.
    public func start() throws {
        if isRunning { return }
        try prepareDirectories()
        var options = [
            "-c listen_addresses=127.0.0.1",
            "-c port=\(port)",
            "-c unix_socket_directories=\(shellQuoted(socketDirectory))",
        ]
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            options.append("-c \(shellQuoted("\(name)=\(value)"))")
        }
        do {
            // pg_ctl passes -o through /bin/sh, hence the shell quoting above.
            _ = try run("pg_ctl", ["start", "-w", "-t", "60", "-D", dataDirectory, "-l", logFile, "-o", options.joined(separator: " ")])
        } catch let error as PostgresClusterError {
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            throw PostgresClusterError("\(error.message)\nserver log (tail):\n\(log.split(separator: "\n").suffix(15).joined(separator: "\n"))")
        }
    }

    public func stop(mode: StopMode = .fast) throws {
        guard isRunning else { return }
        _ = try run("pg_ctl", ["stop", "-w", "-t", "60", "-D", dataDirectory, "-m", mode.rawValue])
    }

    /// `pg_ctl status`: exit code 0 means a server is running on this data directory.
    public var isRunning: Bool {
        guard FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") else { return false }
        return (try? run("pg_ctl", ["status", "-D", dataDirectory])) != nil
    }

    /// `CREATE DATABASE name [TEMPLATE template]` over a short-lived connection (blocking).
    public func createDatabase(_ name: String, template: String? = nil) throws {
        var sql = "CREATE DATABASE \(PostgresQuery.quoteIdentifier(name))"
        if let template { sql += " TEMPLATE \(PostgresQuery.quoteIdentifier(template))" }
        let connection = try PostgresConnection.connect(conninfo)
        try connection.execute(script: sql)
    }

    // MARK: - Processes

    private var runsAsRoot: Bool { getuid() == 0 }

    /// Creates the directories and, as root, hands them to the postgres user after checking
    /// that it can reach them at all.
    private func prepareDirectories() throws {
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        } catch {
            throw PostgresClusterError("cannot create \(socketDirectory): \(error.localizedDescription)")
        }
        // The server's socket path must fit in sockaddr_un.sun_path (108 bytes).
        let socketPath = "\(socketDirectory)/.s.PGSQL.\(port)"
        guard socketPath.utf8.count < 108 else {
            throw PostgresClusterError("the socket path \(socketPath) is too long for a Unix socket; use a shorter directory")
        }
        guard runsAsRoot else { return }
        for path in [directory, socketDirectory] {
            guard chown(path, postgresUser.uid, postgresUser.gid) == 0 else {
                throw PostgresClusterError("cannot chown \(path) to the postgres user: \(String(cString: strerror(errno)))")
            }
        }
        if (try? run("test", ["-w", directory])) == nil {
            throw PostgresClusterError(
                "the postgres OS user cannot reach \(directory); every parent directory must be traversable (o+x) — use a directory under /tmp")
        }
    }

    private var postgresUser: (uid: uid_t, gid: gid_t) {
        guard let entry = getpwnam("postgres") else { return (0, 0) }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// Runs a PostgreSQL tool (as the postgres user when root); returns its output, throws with
    /// the output on a non-zero exit.
    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let executable = tool == "test" ? "/usr/bin/test" : try Self.binary(tool)
        let (program, programArguments) = runsAsRoot
            ? ("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
            : (executable, arguments)
        // A working directory the postgres user can enter (it cannot enter /root).
        let workingDirectory = FileManager.default.fileExists(atPath: directory) ? directory : nil
        let output = try Subprocess.run(program, programArguments, workingDirectory: workingDirectory)
        guard output.status == 0 else {
            throw PostgresClusterError("\(tool) \(arguments.joined(separator: " ")) failed (exit \(output.status)): \(output.text)")
        }
        return output.text
    }

    /// `/usr/lib/postgresql/15/bin`, then `PATH`, then `pg_config --bindir`.
    static func binary(_ name: String) throws -> String {
        let fileManager = FileManager.default
        var candidates = ["/usr/lib/postgresql/15/bin"]
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in candidates where fileManager.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        for directory in candidates {
            if let output = try? Subprocess.run(directory + "/pg_config", ["--bindir"]), output.status == 0 {
                let bindir = output.text.trimmingCharacters(in: .whitespacesAndNewlines)
                if fileManager.isExecutableFile(atPath: "\(bindir)/\(name)") { return "\(bindir)/\(name)" }
            }
        }
        throw PostgresClusterError("cannot find \(name): install postgresql-15 or put its bin directory on PATH")
    }

    private func shellQuoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Asks the kernel for a free TCP port on 127.0.0.1; nil when it gives none.
    public static func freeLocalPort() -> Int? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}

/// A failure of `initdb`/`pg_ctl` or of the cluster's directories, with the tool's output.
public struct PostgresClusterError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
