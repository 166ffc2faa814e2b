import Foundation
import Testing
import OpenPushTestSupport
@testable import Postgres

/// Every wait on PostgreSQL is bounded: statements and locks by the server's timeouts, a server
/// that stops answering altogether by the client's reply deadline.
@Suite struct PostgresTimeoutsTests {
    @Test func optionsNameTheSettingsTheOperatorChose() {
        #expect(PostgresTimeouts.settingNames(inOptions: "-c statement_timeout=0 -csearch_path=x --lock-timeout=5s")
                == ["statement_timeout", "search_path", "lock_timeout"])
        // deadlock_timeout is not lock_timeout.
        #expect(PostgresTimeouts.settingNames(inOptions: "-c deadlock_timeout=1s") == ["deadlock_timeout"])
        let timeouts = PostgresTimeouts(statement: .milliseconds(1500))
        #expect(timeouts.sessionSettings(operatorOptions: nil) == ["SET statement_timeout TO 1500", "SET lock_timeout TO 1500"])
        #expect(timeouts.sessionSettings(operatorOptions: "-c deadlock_timeout=1s -c statement_timeout=0")
                == ["SET lock_timeout TO 1500"])
        #expect(PostgresTimeouts().sessionSettings(operatorOptions: nil).isEmpty)
        #expect(timeouts.replyTimeout == .milliseconds(3500))
        #expect(PostgresTimeouts().replyTimeout == nil)
    }

    @Test func connectionsGetTCPBoundsUnlessTheConninfoSetsThem() async throws {
        let database = try await TestDatabase.create()
        let bare = try database.productConninfo
        let standard = try PostgresConnection.connect(bare)
        #expect(standard.connectionOption("tcp_user_timeout") == "10000")
        #expect(standard.connectionOption("keepalives_idle") == "10")
        #expect(standard.connectionOption("connect_timeout") == "2")
        let chosen = try PostgresConnection.connect(bare + " tcp_user_timeout=1234 connect_timeout=7")
        #expect(chosen.connectionOption("tcp_user_timeout") == "1234")
        #expect(chosen.connectionOption("connect_timeout") == "7")
    }

    @Test func sessionTimeoutsApplyUnlessTheConninfoSetsThem() async throws {
        let database = try await TestDatabase.create()
        let timeouts = PostgresTimeouts(statement: .milliseconds(1500))
        func show(_ conninfo: String, _ setting: String) async throws -> String {
            let pool = PostgresPool(conninfo: conninfo, size: 1, timeouts: timeouts)
            defer { Task { await pool.close() } }
            return try await pool.query(PostgresQuery(unsafeSQL: "SHOW \(setting)"))[0].decode(setting)
        }
        #expect(try await show(database.conninfo, "statement_timeout") == "1500ms")
        #expect(try await show(database.conninfo, "lock_timeout") == "1500ms")
        let operatorChoice = database.conninfo + " options='-c statement_timeout=0'"
        #expect(try await show(operatorChoice, "statement_timeout") == "0")
        #expect(try await show(operatorChoice, "lock_timeout") == "1500ms")
    }

    @Test func aLongStatementIsCancelledAndTheConnectionStaysUsable() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 1, timeouts: PostgresTimeouts(statement: .milliseconds(300)))
        let started = ContinuousClock.now
        await #expect {
            try await pool.query("SELECT pg_sleep(60)")
        } throws: { error in
            (error as? PostgresError)?.isTimeout == true && (error as? PostgresError)?.isConnectionFailure == false
        }
        // Cancelled at 300 ms; uncancelled it would sleep 60 s. Half of that leaves a loaded
        // machine all the room it needs.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try await pool.query("SELECT 1 AS one").firstRow().decode("one", as: Int.self) == 1)
        await pool.close()
    }

    @Test func aLockWaitIsCancelled() async throws {
        let database = try await TestDatabase.create()
        let holder = try PostgresConnection.connect(database.conninfo)
        try holder.query("SELECT pg_advisory_lock(4242)")
        // Without a statement timeout, so that it is the lock timeout that fires.
        let pool = PostgresPool(conninfo: database.conninfo + " options='-c statement_timeout=0'", size: 1,
                                timeouts: PostgresTimeouts(statement: .milliseconds(300)))
        await #expect {
            try await pool.query("SELECT pg_advisory_lock(4242)")
        } throws: { error in
            (error as? PostgresError)?.sqlState == "55P03" && (error as? PostgresError)?.isTimeout == true
        }
        try holder.query("SELECT pg_advisory_unlock(4242)")
        await pool.close()
    }

    @Test func migrationsRunPastTheTimeouts() async throws {
        let conninfo = try await TestDatabase.create().createEmptySibling()
        let pool = PostgresPool(conninfo: conninfo, size: 1, timeouts: PostgresTimeouts(statement: .milliseconds(200)))
        let applied = try await Migrator(pool: pool).apply([Migration(version: 1, name: "slow", sql: "SELECT pg_sleep(2.5)")])
        #expect(applied == [1])
        // …and the pool's own timeouts are back for what follows.
        await #expect {
            try await pool.query("SELECT pg_sleep(1)")
        } throws: { error in
            (error as? PostgresError)?.isTimeout == true
        }
        await pool.close()
    }

    /// The proxy keeps the socket open and acknowledged but answers nothing: no server-side
    /// timeout can fire, since the server never saw the query. The reply deadline must.
    @Test func aStalledServerFailsTheQueryAtTheReplyDeadlineAndThePoolRecovers() async throws {
        let database = try await TestDatabase.create()
        let (proxy, conninfo) = try StallingTCPProxy.inFront(of: database.conninfo)
        defer { proxy.close() }
        let pool = PostgresPool(conninfo: conninfo, size: 1, timeouts: PostgresTimeouts(statement: .milliseconds(500)))
        #expect(try await pool.query("SELECT 1 AS one").firstRow().decode("one", as: Int.self) == 1)

        proxy.stall()
        // Without a deadline the query would wait forever; resume after a while so that a
        // regression fails the expectations below instead of hanging the suite. 150 s: whichever
        // of the two queries hung, it would have waited well past the 60 s bound by then.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(150))
            proxy.resume()
        }
        for _ in 0..<2 {  // the idle connection that looks fine, then a fresh one that cannot log in
            let started = ContinuousClock.now
            await #expect {
                try await pool.query("SELECT 1")
            } throws: { error in
                (error as? PostgresError)?.isConnectionFailure == true
            }
            // The reply deadline is 2.5 s (connect_timeout 2 s for the fresh one); 60 s leaves
            // room for the parallel run's load.
            #expect(ContinuousClock.now - started < .seconds(60))
        }
        #expect(pool.statistics.inUse == 0)
        watchdog.cancel()

        proxy.resume()
        #expect(try await pool.query("SELECT 2 AS two").firstRow().decode("two", as: Int.self) == 2)
        await pool.close()
    }
}
