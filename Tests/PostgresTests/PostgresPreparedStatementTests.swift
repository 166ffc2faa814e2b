import Testing
import OpenPushTestSupport
@testable import Postgres

/// `PostgresQuery.prepared`: on a session of its own a statement is prepared once, in the round
/// trip of its first run, and reused after; behind a transaction pooler nothing is prepared.
@Suite struct PostgresPreparedStatementTests {
    /// The session's named statements, by their text.
    static func prepared(on connection: PostgresConnection) throws -> [String] {
        try connection.query("SELECT statement FROM pg_prepared_statements ORDER BY name").map { try $0.decode("statement") }
    }

    static func increment(_ value: Int) -> PostgresQuery { "SELECT \(value)::int + 1 AS n" }

    @Test func aPreparedQueryIsParsedOncePerSessionAndAnswersEveryRun() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo)
        for value in 1...7 {
            #expect(try connection.query(prepared: Self.increment(value)).firstRow().decode("n", as: Int.self) == value + 1)
        }
        // In a transaction too, and alongside unnamed statements in a pipeline.
        try connection.begin()
        #expect(try connection.query(prepared: Self.increment(41)).firstRow().decode("n", as: Int.self) == 42)
        let answers = try connection.pipeline([Self.increment(1).prepared, "SELECT 'plain' AS n", Self.increment(2).prepared])
        try connection.query("COMMIT")
        #expect(try answers.map { try $0.firstRow().decode("n", as: String.self) } == ["2", "plain", "3"])
        #expect(try Self.prepared(on: connection) == [Self.increment(0).sql])
    }

    @Test func aPipelinePreparesEachNewTextOnceEvenWhenItComesTwice() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo)
        let other: PostgresQuery = "SELECT \("x")::text || 'y' AS n"
        let answers = try connection.pipeline([Self.increment(1).prepared, other.prepared, Self.increment(5).prepared])
        #expect(try answers.map { try $0.firstRow().decode("n", as: String.self) } == ["2", "xy", "6"])
        #expect(Set(try Self.prepared(on: connection)) == [Self.increment(0).sql, other.sql])
    }

    @Test func aParseThatNeverRanIsPreparedAgainNextTime() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo)
        // The first statement fails, so the pipeline's Parse of the second is skipped.
        #expect(throws: PostgresError.self) {
            try connection.pipeline(["SELECT 1 / 0 AS n", Self.increment(1).prepared])
        }
        #expect(try Self.prepared(on: connection).isEmpty)
        #expect(try connection.query(prepared: Self.increment(1)).firstRow().decode("n", as: Int.self) == 2)
        #expect(try Self.prepared(on: connection) == [Self.increment(0).sql])
    }

    @Test func aStatementTheServerRefusesFailsTheSameWayEveryTime() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo)
        let broken: PostgresQuery = "SELECT no_such_column FROM pg_class WHERE oid = \(1)"
        for _ in 0..<2 {
            let error = try #require(throws: PostgresError.self) { try connection.query(prepared: broken) }
            #expect(error.sqlState == "42703")
        }
        #expect(try Self.prepared(on: connection).isEmpty)
    }

    @Test func behindATransactionPoolerNothingIsPrepared() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo, scope: .transaction)
        for value in 1...3 {
            #expect(try connection.query(prepared: Self.increment(value)).firstRow().decode("n", as: Int.self) == value + 1)
        }
        #expect(try connection.pipeline([Self.increment(9).prepared]).first?.firstRow().decode("n", as: Int.self) == 10)
        #expect(try Self.prepared(on: connection).isEmpty)
    }
}

extension PostgresPreparedStatementTests {
    @Test func aStatementWhoseTableChangedUnderItIsPreparedAfreshAfterOneFailure() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo)
        try connection.query("CREATE TABLE widgets (id int)")
        try connection.query("INSERT INTO widgets VALUES (1)")
        let everything: PostgresQuery = "SELECT * FROM widgets WHERE id = \(1)"
        #expect(try connection.query(prepared: everything).columnNames == ["id"])
        try connection.query("ALTER TABLE widgets ADD COLUMN name text")
        // PostgreSQL refuses the old plan's shape once ("cached plan must not change result type")…
        let error = try #require(throws: PostgresError.self) { try connection.query(prepared: everything) }
        #expect(error.sqlState == "0A000")
        // …and then it is prepared again, in a pipeline as alone.
        #expect(try connection.pipeline([everything.prepared]).first?.columnNames == ["id", "name"])
        #expect(try connection.query(prepared: everything).columnNames == ["id", "name"])
    }
}

extension PostgresPreparedStatementTests {
    /// Prepared statements belong to the session, not to the transaction that prepared them.
    @Test func aStatementPreparedInATransactionThatRolledBackIsStillThere() async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo)
        try connection.begin()
        #expect(try connection.query(prepared: Self.increment(1)).firstRow().decode("n", as: Int.self) == 2)
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1 / 0") }
        try connection.query("ROLLBACK")
        #expect(try connection.query(prepared: Self.increment(2)).firstRow().decode("n", as: Int.self) == 3)
        #expect(try connection.pipeline([Self.increment(3).prepared]).first?.firstRow().decode("n", as: Int.self) == 4)
        #expect(try Self.prepared(on: connection) == [Self.increment(0).sql])
    }
}
