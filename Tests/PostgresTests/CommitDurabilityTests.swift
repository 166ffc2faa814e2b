import Testing
import OpenPushTestSupport
@testable import Postgres

/// A deferred commit is `synchronous_commit = off` for that transaction only, in both settings
/// scopes, and the next transaction on the same connection waits for its flush again.
@Suite struct CommitDurabilityTests {
    static func synchronousCommit(_ connection: PostgresConnection, durability: CommitDurability = .flushed) throws -> String {
        try connection.query("SELECT current_setting('synchronous_commit') AS value", durability: durability)
            .firstRow().decode("value")
    }

    @Test(arguments: [PostgresSettingsScope.session, .transaction])
    func aDeferredCommitHoldsForItsOwnTransactionOnly(scope: PostgresSettingsScope) async throws {
        let database = try await TestDatabase.create()
        let connection = try PostgresConnection.connect(database.conninfo, scope: scope)
        // The test cluster runs with it off; the session starts from PostgreSQL's default here.
        try connection.execute(script: "SET synchronous_commit TO on")

        try connection.begin(durability: .deferred)
        #expect(try Self.synchronousCommit(connection) == "off")
        try connection.query("COMMIT")
        #expect(try Self.synchronousCommit(connection) == "on")

        // A statement outside a transaction: its own implicit transaction only.
        #expect(try Self.synchronousCommit(connection, durability: .deferred) == "off")
        #expect(try Self.synchronousCommit(connection) == "on")

        try connection.begin()
        #expect(try Self.synchronousCommit(connection) == "on")
        try connection.query("COMMIT")
    }

    @Test func thePoolsTransactionTakesADurability() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        _ = try await pool.withConnection { try $0.execute(script: "SET synchronous_commit TO on") }
        let deferred = try await pool.transaction(durability: .deferred) { try Self.synchronousCommit($0) }
        let flushed = try await pool.transaction { try Self.synchronousCommit($0) }
        #expect(deferred == "off")
        #expect(flushed == "on")
        await pool.close()
    }
}
