import Foundation
import Testing
import OpenPushTestSupport
@testable import Postgres

/// Behind a transaction pooler a session keeps nothing: each transaction, and each statement
/// outside one, sets the output formats and timeouts for itself.
@Suite struct PostgresSettingsScopeTests {
    static let timeouts = PostgresTimeouts(statement: .milliseconds(1500))

    @Test func theSettingsBecomeSessionSetsSetLocalsOrSetConfigCalls() {
        let settings = PostgresSessionSettings(settings: [("TimeZone", "UTC"), ("statement_timeout", "1500")])
        #expect(settings.sessionScript == "SET TimeZone TO 'UTC'; SET statement_timeout TO '1500'")
        #expect(settings.beginScript == "BEGIN; SET LOCAL TimeZone TO 'UTC'; SET LOCAL statement_timeout TO '1500'")
        #expect(settings.statementPrefix.sql == "SELECT set_config('TimeZone', 'UTC', true), set_config('statement_timeout', '1500', true)")
        #expect(settings.statementPrefix.binds.isEmpty)
        #expect(PostgresSessionSettings.literal("it's") == "'it''s'")
    }

    @Test func perTransactionTheFormatsTheServerAlreadyGivesAreLeftOut() {
        let timeouts = [(name: "statement_timeout", value: "1500"), (name: "lock_timeout", value: "1500")]
        let defaults = ["DateStyle": "ISO, MDY", "TimeZone": "Etc/UTC", "bytea_output": "hex", "extra_float_digits": "1"]
        #expect(PostgresSessionSettings.perTransaction(current: defaults, timeouts: timeouts).settings.map(\.name)
                == ["statement_timeout", "lock_timeout"])
        let odd = ["DateStyle": "German, DMY", "TimeZone": "Europe/Paris", "bytea_output": "escape", "extra_float_digits": "0"]
        #expect(PostgresSessionSettings.perTransaction(current: odd, timeouts: []) == PostgresSessionSettings(
            settings: PostgresSessionSettings.formats))
        // A value it could not read is set.
        #expect(PostgresSessionSettings.perTransaction(current: ["DateStyle": "ISO, DMY"], timeouts: []).settings.map(\.name)
                == ["TimeZone", "bytea_output", "extra_float_digits"])
    }

    /// Fails (a server error) unless the session itself holds PostgreSQL's defaults: a script
    /// runs without the per-statement settings, so it sees the session as it is.
    static let sessionHoldsTheDefaults = """
        DO $$ BEGIN
          IF current_setting('statement_timeout') <> '0' OR current_setting('lock_timeout') <> '0'
             OR current_setting('extra_float_digits') <> '1' THEN
            RAISE EXCEPTION 'the session keeps % / % / %', current_setting('statement_timeout'),
              current_setting('lock_timeout'), current_setting('extra_float_digits');
          END IF;
        END $$
        """

    @Test func everyStatementAndTransactionRunsUnderTheSettingsWhileTheSessionKeepsNone() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 1, timeouts: Self.timeouts, settingsScope: .transaction)
        let lone = try await pool.query("""
            SELECT current_setting('statement_timeout') AS st, current_setting('lock_timeout') AS lt,
                   current_setting('TimeZone') AS tz, current_setting('DateStyle') AS ds,
                   current_setting('extra_float_digits') AS efd, '2024-01-02 03:04:05+00'::timestamptz::text AS at
            """).firstRow()
        #expect(try lone.decode("st", as: String.self) == "1500ms")
        #expect(try lone.decode("lt", as: String.self) == "1500ms")
        #expect(["UTC", "Etc/UTC"].contains(try lone.decode("tz", as: String.self)))
        #expect(try lone.decode("ds", as: String.self).hasPrefix("ISO"))
        #expect(try lone.decode("efd", as: Int.self) >= 1)
        #expect(try lone.decode("at", as: String.self) == "2024-01-02 03:04:05+00")
        let inTransaction: String = try await pool.transaction { connection in
            try connection.query("SELECT current_setting('statement_timeout') AS st").firstRow().decode("st")
        }
        #expect(inTransaction == "1500ms")
        let piped = try await pool.withConnection { connection in
            try connection.pipeline(["SELECT 1 AS n", "SELECT current_setting('lock_timeout') AS n"])
        }
        #expect(piped.count == 2)
        #expect(try piped[0].firstRow().decode("n", as: Int.self) == 1)
        #expect(try piped[1].firstRow().decode("n", as: String.self) == "1500ms")
        // The same (only) connection: nothing of the above stayed on its session.
        try await pool.withConnection { try $0.execute(script: Self.sessionHoldsTheDefaults) }
        await pool.close()
    }

    /// A server whose defaults differ gets the formats in every transaction too.
    @Test func formatsTheServerDoesNotGiveAreSetPerTransaction() async throws {
        let database = try await TestDatabase.create()
        let odd = database.conninfo + " options='-c TimeZone=Europe/Paris -c DateStyle=German -c bytea_output=escape'"
        let pool = PostgresPool(conninfo: odd, size: 1, timeouts: Self.timeouts, settingsScope: .transaction)
        let row = try await pool.query("""
            SELECT '2024-01-02 03:04:05+00'::timestamptz::text AS at, '\\x01ff'::bytea::text AS bytes
            """).firstRow()
        #expect(try row.decode("at", as: String.self) == "2024-01-02 03:04:05+00")
        #expect(try row.decode("bytes", as: String.self) == "\\x01ff")
        let inTransaction: String = try await pool.transaction { connection in
            try connection.query("SELECT '2024-01-02 03:04:05+00'::timestamptz::text AS at").firstRow().decode("at")
        }
        #expect(inTransaction == "2024-01-02 03:04:05+00")
        await pool.close()
    }

    @Test func aSessionScopedConnectionKeepsThemOnTheSession() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 1, timeouts: Self.timeouts)
        await #expect(throws: PostgresError.self) {
            try await pool.withConnection { try $0.execute(script: Self.sessionHoldsTheDefaults) }
        }
        await pool.close()
    }

    @Test func aLongStatementIsCancelledAloneAndInATransaction() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 1, timeouts: PostgresTimeouts(statement: .milliseconds(300)),
                                settingsScope: .transaction)
        func isTimeout(_ error: any Error) -> Bool {
            (error as? PostgresError)?.isTimeout == true && (error as? PostgresError)?.isConnectionFailure == false
        }
        let started = ContinuousClock.now
        await #expect { try await pool.query("SELECT pg_sleep(60)") } throws: { isTimeout($0) }
        await #expect { try await pool.transaction { try $0.query("SELECT pg_sleep(60)") } } throws: { isTimeout($0) }
        // Each is cancelled at 300 ms; either one left uncancelled would sleep 60 s.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try await pool.query("SELECT 1 AS one").firstRow().decode("one", as: Int.self) == 1)
        await pool.close()
    }

    /// `SET LOCAL` takes no snapshot, so a transaction may still choose its isolation first.
    @Test func aTransactionMayStillSetItsIsolationLevel() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 1, timeouts: Self.timeouts, settingsScope: .transaction)
        let level: String = try await pool.transaction { connection in
            try connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return try connection.query("SELECT current_setting('transaction_isolation') AS level").firstRow().decode("level")
        }
        #expect(level == "repeatable read")
        await pool.close()
    }
}
