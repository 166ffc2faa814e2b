import Foundation
import Synchronization
import OpenPushTestSupport
import Testing
@testable import Postgres

@Suite struct MigratorTests {
    /// Neither migration tolerates running twice: no IF NOT EXISTS. Versions above the
    /// repository's own migrations, which the test databases already carry.
    let migrations = [
        Migration(version: 102, name: "add_column", sql: "ALTER TABLE widgets ADD COLUMN colour text"),
        Migration(version: 101, name: "widgets", sql: "CREATE TABLE widgets (id int PRIMARY KEY); INSERT INTO widgets VALUES (1)"),
    ]

    @Test func appliesInOrderAndRecordsVersions() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let migrator = Migrator(pool: pool)
        #expect(try await !migrator.isUpToDate(migrations))
        #expect(try await migrator.apply(migrations) == [101, 102])
        #expect(try await migrator.isUpToDate(migrations))
        #expect(try await migrator.apply(migrations) == [])

        let recorded = try await pool.query("SELECT version, name FROM schema_migrations ORDER BY version")
        #expect(try recorded.map { try $0.decode("version", as: Int.self) }.suffix(2) == [101, 102])
        #expect(try recorded.map { try $0.decode("name", as: String.self) }.suffix(2) == ["widgets", "add_column"])
        try await pool.query("UPDATE widgets SET colour = \("blue") WHERE id = \(1)")
        #expect(try await !migrator.isUpToDate(migrations + [Migration(version: 103, name: "later", sql: "SELECT 1")]))
        await pool.close()
    }

    @Test func concurrentAppliesApplyEachMigrationOnce() async throws {
        let database = try await TestDatabase.create()
        let first = database.makePool(size: 1)
        let second = database.makePool(size: 1)
        let migrations = migrations
        async let a = Migrator(pool: first).apply(migrations)
        async let b = Migrator(pool: second).apply(migrations)
        let (appliedByA, appliedByB) = try await (a, b)
        #expect((appliedByA + appliedByB).sorted() == [101, 102])
        // Each migration is its own transaction: the two processes may share the work, never a migration.
        #expect(Set(appliedByA).isDisjoint(with: appliedByB))
        let count = try await first.query("SELECT count(*) AS n FROM schema_migrations WHERE version IN (101, 102)")
        #expect(try count[0].decode("n", as: Int.self) == 2)
        await first.close()
        await second.close()
    }

    @Test func failedMigrationRollsBackOnlyItself() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let broken = migrations + [Migration(version: 103, name: "broken", sql: "CREATE TABLE gadgets (id int); CREATE TABLE widgets (id int)")]
        do {
            try await Migrator(pool: pool).apply(broken)
            Issue.record("a failing migration should throw")
        } catch let error as PostgresError {
            #expect(error.sqlState == "42P07")
            #expect(error.message.contains("103_broken"))
        }
        // Each migration is a transaction of its own: the two before the broken one stay.
        let recorded = try await pool.query("SELECT version FROM schema_migrations WHERE version > 100 ORDER BY version")
        #expect(try recorded.map { try $0.decode("version", as: Int.self) } == [101, 102])
        #expect(try await pool.query("SELECT to_regclass('gadgets') IS NULL AS gone").firstRow().decode("gone", as: Bool.self))
        #expect(try await pool.query("SELECT to_regclass('widgets') IS NOT NULL AS kept").firstRow().decode("kept", as: Bool.self))
        await pool.close()
    }

    /// A table held by a long transaction: the migration that needs it gives up its try after
    /// the lock timeout (so requests queued behind it are not stalled), retries, and applies
    /// once the table is free.
    @Test func busyLockIsWaitedForBoundedlyAndRetried() async throws {
        let (pool, holder) = try await widgetsHeldByAnotherTransaction()
        let retries = Counter()
        let settings = quickRetries(lockTimeout: .milliseconds(50), pause: .milliseconds(20), attempts: 1_000) {
            step, _, _ in if step.version == 102 { retries.increment() }
        }
        let migrations = migrations
        let applying = Task { try await Migrator(pool: pool, settings: settings).apply(migrations) }
        // Waits on the retries themselves; the bound only keeps a broken run from hanging.
        for _ in 0..<12_000 where retries.value < 2 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(retries.value >= 2)
        #expect(try await pool.query("SELECT count(*) AS n FROM schema_migrations WHERE version = 102").firstRow()
            .decode("n", as: Int.self) == 0)
        try holder.execute(script: "ROLLBACK")
        #expect(try await applying.value == [102])
        await pool.close()
    }

    @Test func busyLockGivesUpAfterItsTries() async throws {
        let (pool, holder) = try await widgetsHeldByAnotherTransaction()
        let settings = quickRetries(lockTimeout: .milliseconds(20), pause: .milliseconds(1), attempts: 3)
        do {
            try await Migrator(pool: pool, settings: settings).apply(migrations)
            Issue.record("a migration whose lock never frees should throw")
        } catch let error as PostgresError {
            #expect(error.sqlState == "55P03")
            #expect(error.message.contains("102_add_column"))
            #expect(error.message.contains("3 tries"))
        }
        try holder.execute(script: "ROLLBACK")
        await pool.close()
    }

    /// Migration 101 applied, and `widgets` locked by another session's open transaction, which
    /// 102 (`ALTER TABLE widgets`) must wait for. The caller rolls `holder` back.
    private func widgetsHeldByAnotherTransaction() async throws -> (pool: PostgresPool, holder: PostgresConnection) {
        let database = try await TestDatabase.create()
        let pool = database.makePool(size: 1)
        try await Migrator(pool: pool).apply(migrations.filter { $0.version == 101 })
        let holder = try PostgresConnection.connect(database.conninfo)
        try holder.execute(script: "BEGIN; LOCK TABLE widgets IN ACCESS SHARE MODE")
        return (pool, holder)
    }

    private func quickRetries(lockTimeout: Duration, pause: Duration, attempts: Int,
                              retrying: @escaping @Sendable (MigrationStep, Int, Duration) -> Void = { _, _, _ in }) -> Migrator.Settings {
        var settings = Migrator.Settings()
        settings.lockTimeout = lockTimeout
        settings.retrySchedule = MigrationRetrySchedule(first: pause, longest: pause)
        settings.attempts = attempts
        settings.retrying = retrying
        return settings
    }

    /// A backfill runs batch by batch, each committed, and a stopped upgrade resumes at the next
    /// batch without running the migration's body again (which would fail: no IF NOT EXISTS).
    @Test func backfillRunsInBatchesAndResumes() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query("CREATE TABLE gadgets (id int PRIMARY KEY, size int)")
        try await pool.query("INSERT INTO gadgets SELECT n, NULL FROM generate_series(1, 1000) AS n")
        // Fails on the batch that reaches id 501, as a stopped upgrade would stop there.
        let failing = Migration(version: 104, name: "gadget_sizes", sql: """
            ALTER TABLE gadgets ADD COLUMN weight int;
            -- openpush:backfill
            UPDATE gadgets SET size = 1 / (CASE WHEN id > 500 THEN 0 ELSE 1 END)
            WHERE id IN (SELECT id FROM gadgets WHERE size IS NULL ORDER BY id LIMIT 100)
            """)
        do {
            try await Migrator(pool: pool).apply([failing])
            Issue.record("the failing batch should throw")
        } catch let error as PostgresError {
            #expect(error.message.contains("104_gadget_sizes, backfill"))
        }
        func filled() async throws -> Int {
            try await pool.query("SELECT count(size) AS n FROM gadgets").firstRow().decode("n", as: Int.self)
        }
        #expect(try await filled() == 500)
        #expect(try await !Migrator(pool: pool).isUpToDate([failing]))

        let fixed = Migration(version: 104, name: "gadget_sizes", sql: """
            ALTER TABLE gadgets ADD COLUMN weight int;
            -- openpush:backfill
            UPDATE gadgets SET size = 1 WHERE id IN (SELECT id FROM gadgets WHERE size IS NULL ORDER BY id LIMIT 100)
            """)
        #expect(try await Migrator(pool: pool).apply([fixed]) == [])
        #expect(try await filled() == 1000)
        #expect(try await Migrator(pool: pool).isUpToDate([fixed]))
        #expect(try await pool.query("SELECT backfilled FROM schema_migrations WHERE version = 104").firstRow()
            .decode("backfilled", as: Bool.self))
        await pool.close()
    }

    @Test func backfillIsSplitFromTheBody() {
        let migration = Migration(version: 1, name: "m", sql: "ALTER TABLE t ADD c int;\n  -- openpush:backfill  \nUPDATE t SET c = 1\n")
        #expect(migration.body == "ALTER TABLE t ADD c int;")
        #expect(migration.backfill == "UPDATE t SET c = 1")
        #expect(Migration(version: 1, name: "m", sql: "SELECT 1").backfill == nil)
    }

    @Test func retryPausesDoubleToTheLongest() {
        var schedule = MigrationRetrySchedule(first: .seconds(1), longest: .seconds(5))
        #expect((0..<5).map { _ in schedule.next() } == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
    }

    @Test func loadsSortedFilesAndRejectsBadOnes() throws {
        let directory = NSTemporaryDirectory() + "openpush-migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ name: String, _ sql: String = "SELECT 1") throws {
            try sql.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        try write("0010_later.sql", "SELECT 10")
        try write("0002_second-step.sql")
        try write("README.md", "not a migration")
        let loaded = try Migrator.load(directory: directory)
        #expect(loaded.map(\.version) == [2, 10])
        #expect(loaded.map(\.name) == ["second-step", "later"])
        #expect(loaded[1].sql == "SELECT 10")

        try write("02_duplicate.sql")
        #expect(throws: MigrationError.self) { try Migrator.load(directory: directory) }
        try FileManager.default.removeItem(atPath: directory + "/02_duplicate.sql")
        try write("init.sql")
        #expect(throws: MigrationError.self) { try Migrator.load(directory: directory) }
    }

    @Test(arguments: ["0001_init.sql", "12_a-b_c.sql"])
    func goodNames(_ name: String) {
        #expect(Migrator.parse(fileName: name) != nil)
    }

    @Test(arguments: ["init.sql", "0001.sql", "0001_.sql", "x001_init.sql", "0000_zero.sql", "0001_bad name.sql"])
    func badNames(_ name: String) {
        #expect(Migrator.parse(fileName: name) == nil)
    }

    @Test func repositoryMigrationsLoad() throws {
        let loaded = try Migrator.load(directory: TestDatabase.migrationsDirectory)
        #expect(loaded.first?.version == 1)
    }
}

/// A count a test's closures may bump from any thread.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
