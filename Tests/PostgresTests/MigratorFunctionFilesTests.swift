import Foundation
import Synchronization
import OpenPushTestSupport
import Testing
@testable import Postgres

/// `migrations/functions/`: the SQL function files the migrator runs after the migrations on
/// every start.
@Suite struct MigratorFunctionFilesTests {
    /// Versions above the repository's own migrations, which the test databases already carry.
    let widgets = Migration(version: 101, name: "widgets", sql: "CREATE TABLE widgets (id int PRIMARY KEY); INSERT INTO widgets VALUES (1), (2)")
    let gadgets = Migration(version: 102, name: "gadgets", sql: "CREATE TABLE gadgets (id int PRIMARY KEY)")

    /// A directory of function files, written and rewritten as a release would ship them.
    final class Folder: Sendable {
        let migrations: String
        var functions: String { migrations + "/" + FunctionFile.folder }

        init() throws {
            migrations = NSTemporaryDirectory() + "openpush-functions-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: migrations + "/" + FunctionFile.folder, withIntermediateDirectories: true)
        }

        func write(_ name: String, _ sql: String) throws {
            try sql.write(toFile: functions + "/" + name, atomically: true, encoding: .utf8)
        }

        func load() throws -> [FunctionFile] { try FunctionFile.load(migrationsDirectory: migrations) }

        deinit { try? FileManager.default.removeItem(atPath: migrations) }
    }

    static func widgetCount(times factor: Int) -> String {
        """
        -- The widgets, counted (`factor` tells one definition from another).
        CREATE OR REPLACE FUNCTION widget_count() RETURNS bigint LANGUAGE sql STABLE AS $$
            SELECT count(*) * \(factor) FROM widgets
        $$;
        """
    }

    private func widgetCount(_ pool: PostgresPool) async throws -> Int {
        try await pool.query("SELECT widget_count() AS n").firstRow().decode("n", as: Int.self)
    }

    /// The file runs after the migration that creates the table its SQL body reads (checked when
    /// it is created), and runs again on the next start: a changed file is the live definition
    /// then, with no migration to apply.
    @Test func filesRunAfterTheMigrationsAndAgainOnEveryStart() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let folder = try Folder()
        try folder.write("widget_count.sql", Self.widgetCount(times: 1))
        #expect(try await Migrator(pool: pool).apply([widgets], functions: folder.load()) == [101])
        #expect(try await widgetCount(pool) == 2)

        try folder.write("widget_count.sql", Self.widgetCount(times: 10))
        #expect(try await Migrator(pool: pool).apply([widgets], functions: folder.load()) == [])
        #expect(try await widgetCount(pool) == 20)
        await pool.close()
    }

    /// All files are one transaction: a broken one fails the start with its name, and the
    /// files before it are rolled back, so the database keeps the definitions it had.
    @Test func aBrokenFileFailsWithItsNameAndChangesNothing() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let folder = try Folder()
        try folder.write("a_widget_count.sql", Self.widgetCount(times: 1))
        try await Migrator(pool: pool).apply([widgets], functions: folder.load())

        try folder.write("a_widget_count.sql", Self.widgetCount(times: 10))
        try folder.write("b_sprocket_count.sql", """
            CREATE OR REPLACE FUNCTION sprocket_count() RETURNS bigint LANGUAGE sql STABLE AS $$
                SELECT count(*) FROM sprockets
            $$;
            """)
        do {
            try await Migrator(pool: pool).apply([widgets], functions: folder.load())
            Issue.record("a broken function file should fail the start")
        } catch let error as PostgresError {
            #expect(error.sqlState == "42P01")
            // What `openpush serve` prints when it stops.
            #expect("\(error)".contains("functions/b_sprocket_count.sql"), "\(error)")
            #expect("\(error)".contains("sprockets"), "\(error)")
        }
        #expect(try await widgetCount(pool) == 2)
        #expect(try await pool.query("SELECT to_regproc('sprocket_count') IS NULL AS absent").firstRow()
            .decode("absent", as: Bool.self))
        await pool.close()
    }

    /// In byte order of their names (a file may call what a file sorted before it defines),
    /// only `.sql` files, and a badly named one is refused.
    @Test func filesLoadInNameOrder() throws {
        let folder = try Folder()
        try folder.write("b.sql", "SELECT 2")
        try folder.write("a-x.sql", "SELECT 1")
        try folder.write("10_c.sql", "SELECT 0")
        try folder.write("B.sql", "SELECT 3")
        try folder.write("README.md", "not a function")
        let loaded = try folder.load()
        #expect(loaded.map(\.name) == ["10_c.sql", "B.sql", "a-x.sql", "b.sql"])
        #expect(loaded.map(\.sql) == ["SELECT 0", "SELECT 3", "SELECT 1", "SELECT 2"])

        try folder.write("bad name.sql", "SELECT 4")
        #expect(throws: MigrationError.self) { try folder.load() }
        #expect(throws: MigrationError.self) { try FunctionFile.load(migrationsDirectory: folder.functions + "/absent") }
    }

    /// A process of an older release started beside a newer one (a rolling deploy, a rollback)
    /// leaves the newer release's functions alone: they may need its schema.
    @Test func anOlderReleaseLeavesANewerReleasesFunctions() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let folder = try Folder()
        try folder.write("widget_count.sql", Self.widgetCount(times: 10))
        try await Migrator(pool: pool).apply([widgets, gadgets], functions: folder.load())

        try folder.write("widget_count.sql", Self.widgetCount(times: 1))
        let kept = Mutex<[Int]>([])
        var settings = Migrator.Settings()
        settings.keptNewerFunctions = { version in kept.withLock { $0.append(version) } }
        #expect(try await Migrator(pool: pool, settings: settings).apply([widgets], functions: folder.load()) == [])
        #expect(kept.withLock { $0 } == [102])
        #expect(try await widgetCount(pool) == 20)
        await pool.close()
    }

    /// The files wait for the migrator's advisory lock, as migrations do: two processes starting
    /// at once never replace a function at the same moment.
    @Test func filesWaitForTheMigrationLock() async throws {
        let database = try await TestDatabase.create()
        let pool = database.makePool(size: 1)
        let folder = try Folder()
        try folder.write("widget_count.sql", Self.widgetCount(times: 1))
        try await Migrator(pool: pool).apply([widgets], functions: folder.load())

        let holder = try PostgresConnection.connect(database.conninfo)
        try holder.execute(script: "BEGIN")
        try holder.query("SELECT pg_advisory_xact_lock(\(Migrator.lockKey))")
        try folder.write("widget_count.sql", Self.widgetCount(times: 10))
        let files = try folder.load()
        let defining = Task { try await Migrator(pool: pool).define(files, newestKnown: 101) }
        let observer = try PostgresConnection.connect(database.conninfo)
        // Waits on the state itself; the bound only keeps a broken run from hanging.
        for _ in 0..<12_000 {
            let waiting = try observer.query("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            if try waiting.first?.decode("n", as: Int.self) == 1 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try observer.query("SELECT widget_count() AS n").first?.decode("n", as: Int.self) == 2)
        try holder.execute(script: "ROLLBACK")
        #expect(try await defining.value)
        #expect(try await widgetCount(pool) == 20)
        await pool.close()
    }

    @Test func concurrentStartsBothSucceed() async throws {
        let database = try await TestDatabase.create()
        let first = database.makePool(size: 1)
        let second = database.makePool(size: 1)
        let folder = try Folder()
        try folder.write("widget_count.sql", Self.widgetCount(times: 3))
        let files = try folder.load()
        let migrations = [widgets]
        async let a = Migrator(pool: first).apply(migrations, functions: files)
        async let b = Migrator(pool: second).apply(migrations, functions: files)
        let (appliedByA, appliedByB) = try await (a, b)
        #expect((appliedByA + appliedByB) == [101])
        #expect(try await widgetCount(first) == 6)
        await first.close()
        await second.close()
    }

    // MARK: the repository's files

    /// Each file only replaces functions: anything else (a table, a trigger, a bare `CREATE
    /// FUNCTION`) would fail or repeat itself on the second start.
    @Test func repositoryFilesOnlyReplaceFunctions() throws {
        let files = try FunctionFile.load(migrationsDirectory: TestDatabase.migrationsDirectory)
        #expect(!files.isEmpty)
        for file in files {
            let creates = file.sql.split(separator: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces).uppercased().hasPrefix("CREATE ")
            }
            #expect(!creates.isEmpty, "\(file.name) defines nothing")
            for line in creates {
                #expect(line.uppercased().hasPrefix("CREATE OR REPLACE FUNCTION "), "\(file.name): \(line)")
            }
            #expect(file.sql.hasPrefix("-- "), "\(file.name) has no header comment")
        }
    }

    /// A database of the previous release (the numbered migrations alone, which defined every
    /// function) upgraded by this one ends with the same definitions as a fresh database, and
    /// the files run again on it (a restart) without error.
    @Test func anUpgradedDatabaseDefinesWhatAFreshOneDoes() async throws {
        let fresh = try await TestDatabase.create()
        let upgraded = PostgresPool(conninfo: try await fresh.createEmptySibling(), size: 1)
        let migrations = try Migrator.load(directory: TestDatabase.migrationsDirectory)
        let files = try FunctionFile.load(migrationsDirectory: TestDatabase.migrationsDirectory)
        try await Migrator(pool: upgraded).apply(migrations)
        try await Migrator(pool: upgraded).apply(migrations, functions: files)
        #expect(try await Migrator(pool: upgraded).define(files, newestKnown: migrations.last?.version ?? 0))

        let freshPool = fresh.makePool(size: 1)
        let definitions = { (pool: PostgresPool) in
            try await pool.query("""
                SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature,
                       pg_get_functiondef(p.oid) AS definition
                FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'openpush\\_%'
                ORDER BY 1
                """).map { try [$0.decode("signature", as: String.self), $0.decode("definition", as: String.self)] }
        }
        let upgradedDefinitions = try await definitions(upgraded)
        #expect(!upgradedDefinitions.isEmpty)
        #expect(upgradedDefinitions == (try await definitions(freshPool)))
        await upgraded.close()
        await freshPool.close()
    }
}
