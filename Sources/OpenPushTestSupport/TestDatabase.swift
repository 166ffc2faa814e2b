package import Postgres
import Foundation

/// A fresh, empty, fully migrated database for one test.
///
/// With `OPENPUSH_TEST_DATABASE_URL` set, databases are created on that server (and dropped at
/// exit). Otherwise one temporary cluster per test process is started under a unique temporary
/// directory and removed at exit. Either way, one template database is migrated once per
/// process and each `create()` copies it, which takes milliseconds.
package struct TestDatabase: Sendable {
    package var conninfo: String

    package static func create() async throws -> TestDatabase {
        let server = try await TestDatabaseServer.shared.prepared()
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        TestDatabaseCleanup.shared.track(database: name)
        try await server.adminPool.query(PostgresQuery(unsafeSQL:
            "CREATE DATABASE \(PostgresQuery.quoteIdentifier(name)) TEMPLATE \(PostgresQuery.quoteIdentifier(server.template))"))
        // A connect may wait its turn on a test machine running a thousand tests on two cores:
        // the product's 2 s bound (PostgresTimeouts) once ran out there.
        return TestDatabase(conninfo: try PostgresConnection.conninfo(server.adminConninfo,
                                                                      replacing: ["dbname": name, "connect_timeout": "10"]))
    }

    /// `conninfo` without the options the harness adds for a loaded test machine (a longer
    /// `connect_timeout`), for tests of the product's own bounds.
    package var productConninfo: String {
        get throws { try Self.withoutHarnessOptions(conninfo) }
    }

    package static func withoutHarnessOptions(_ conninfo: String) throws -> String {
        try PostgresConnection.conninfo(conninfo, replacing: [:], removing: ["connect_timeout"])
    }

    package func makePool(size: Int = 4) -> PostgresPool {
        PostgresPool(conninfo: conninfo, size: size)
    }

    /// The repository's `migrations/` directory (with its `functions/`), found from this source
    /// file's location.
    package static var migrationsDirectory: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // OpenPushTestSupport
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // repository root
            .appendingPathComponent("migrations").path
    }
}

/// The server and template shared by all tests of a process; prepared once even when tests
/// run in parallel (the actor hands every caller the same task).
actor TestDatabaseServer {
    static let shared = TestDatabaseServer()

    struct Prepared: Sendable {
        var adminConninfo: String
        var adminPool: PostgresPool
        var template: String
    }

    private var preparation: Task<Prepared, any Error>?

    func prepared() async throws -> Prepared {
        if let preparation { return try await preparation.value }
        let task = Task { try await Self.prepare() }
        preparation = task
        return try await task.value
    }

    private static func prepare() async throws -> Prepared {
        let adminConninfo: String
        let template: String
        if let url = ProcessInfo.processInfo.environment["OPENPUSH_TEST_DATABASE_URL"], !url.isEmpty {
            adminConninfo = url
            // Unique per process: several test processes may share the server.
            template = "openpush_template_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
            TestDatabaseCleanup.shared.useExternalServer(adminConninfo)
        } else {
            adminConninfo = try await startTemporaryCluster()
            template = "openpush_template"
        }
        TestDatabaseCleanup.shared.track(database: template)
        // Tests queue here for CREATE DATABASE; on a loaded machine a copy can take a while, and
        // with a thousand tests started at once the last in the queue waits for all the others'
        // databases (over two minutes on two busy cores): the wait is not a failure.
        let adminPool = PostgresPool(conninfo: adminConninfo, size: 4, acquireTimeout: .seconds(900))
        try await adminPool.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(PostgresQuery.quoteIdentifier(template))"))

        let templatePool = PostgresPool(conninfo: try PostgresConnection.conninfo(adminConninfo, database: template), size: 1)
        try await Migrator(pool: templatePool).apply(Migrator.load(directory: TestDatabase.migrationsDirectory),
                                                     functions: FunctionFile.load(migrationsDirectory: TestDatabase.migrationsDirectory))
        // A template must have no sessions when it is copied.
        await templatePool.close()
        return Prepared(adminConninfo: adminConninfo, adminPool: adminPool, template: template)
    }

    /// initdb + start on a blocking thread of our own; registers the at-exit teardown first so
    /// that a half-started cluster is removed too.
    private static func startTemporaryCluster() async throws -> String {
        let directory = NSTemporaryDirectory() + "openpush-pg-" + UUID().uuidString.prefix(8).lowercased()
        var cluster = PostgresCluster(directory: directory)
        // Durability is pointless for throwaway data; these make CREATE DATABASE and commits cheap.
        cluster.settings = [
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "shared_buffers": "32MB",
            "max_connections": "300",
        ]
        TestDatabaseCleanup.shared.useTemporaryCluster(cluster)
        let started = cluster
        try await runBlocking {
            try started.initializeIfNeeded()
            try started.start()
        }
        return cluster.conninfo
    }
}

/// Runs blocking work (child processes) on a thread of its own, off Swift's cooperative pool.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// What to tear down when the test process exits: the temporary cluster, or the databases
/// created on an external server.
final class TestDatabaseCleanup: @unchecked Sendable {
    static let shared = TestDatabaseCleanup()

    private let lock = NSLock()
    private var cluster: PostgresCluster?
    private var externalConninfo: String?
    private var databases: [String] = []
    private var registered = false

    func useTemporaryCluster(_ cluster: PostgresCluster) {
        lock.withLock { self.cluster = cluster }
        registerAtExit()
    }

    func useExternalServer(_ conninfo: String) {
        lock.withLock { externalConninfo = conninfo }
        registerAtExit()
    }

    func track(database: String) {
        lock.withLock { databases.append(database) }
    }

    private func registerAtExit() {
        let first = lock.withLock {
            defer { registered = true }
            return !registered
        }
        if first { atexit(testDatabaseAtExit) }
    }

    fileprivate func run() {
        let (cluster, externalConninfo, databases) = lock.withLock { (self.cluster, self.externalConninfo, self.databases) }
        if let cluster {
            try? cluster.stop(mode: .immediate)
            try? FileManager.default.removeItem(atPath: cluster.directory)
        }
        if let externalConninfo, let connection = try? PostgresConnection.connect(externalConninfo) {
            for database in databases.reversed() {
                try? connection.execute(script: "DROP DATABASE IF EXISTS \(PostgresQuery.quoteIdentifier(database)) WITH (FORCE)")
            }
        }
    }
}

/// A plain function, not a closure: C calls it at exit, outside any actor.
private func testDatabaseAtExit() {
    TestDatabaseCleanup.shared.run()
}
