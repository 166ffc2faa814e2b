import Foundation
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
        #expect(appliedByA.isEmpty || appliedByB.isEmpty)
        let count = try await first.query("SELECT count(*) AS n FROM schema_migrations WHERE version IN (101, 102)")
        #expect(try count[0].decode("n", as: Int.self) == 2)
        await first.close()
        await second.close()
    }

    @Test func failedMigrationRollsBackEverything() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let broken = migrations + [Migration(version: 103, name: "broken", sql: "CREATE TABLE widgets (id int)")]
        do {
            try await Migrator(pool: pool).apply(broken)
            Issue.record("a failing migration should throw")
        } catch let error as PostgresError {
            #expect(error.sqlState == "42P07")
            #expect(error.message.contains("103_broken"))
        }
        #expect(try await pool.query("SELECT to_regclass('widgets') IS NULL AS gone").firstRow().decode("gone", as: Bool.self))
        await pool.close()
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
