import Testing
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A job's pushes have gone before its outcomes are written: a completion that fails for a
/// passing reason is tried again, not left to the lease, after which the job would run again and
/// send every push a second time.
@Suite struct DeliveryRecordingTests {
    @Test func aCompletionThatOutwaitsItsLockTimeoutIsTriedAgainAndRecordedOnce() async throws {
        var settings = DeliveryHarness.quickSettings()
        settings.leaseSeconds = 12  // the completion is tried again for up to 8 s
        let harness = try await DeliveryHarness.make(settings: settings, configure: { $0.databaseStatementTimeoutMilliseconds = 1000 })
        defer { Task { await harness.shutdown() } }
        let total = 20
        try await DeliveryResilienceTests.queueStarts(total, harness: harness)
        // Another session holds the message row, which the completion's counts UPDATE locks,
        // for longer than the engine's 1 s lock timeout.
        let holder = PostgresPool(conninfo: harness.app.conninfo, size: 1)
        let holding = Task {
            try await holder.transaction { connection in
                try connection.query("SELECT 1 FROM messages WHERE id = 'msg_crash' FOR UPDATE")
                try connection.query("SELECT pg_sleep(2.5)")
            }
        }
        #expect(try await DeliveryResilienceTests.waitUntil(.seconds(10)) {
            let sleeping: Int = try await harness.app.services.database.query("""
                SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(2.5)' AND state = 'active'
                """).firstRow().decode("n")
            return sleeping == 1
        })

        try await harness.drain()
        try await holding.value
        await holder.close()

        #expect(harness.simulator.acceptedCount == total)
        #expect(try await DeliveryResilienceTests.accepted(harness) == total)
        let (jobs, sent): (Int, Int) = try await harness.app.services.database.withConnection { connection in
            let row = try connection.query("""
                SELECT (SELECT count(*)::int FROM delivery_jobs) AS jobs,
                       (SELECT counted_successful::int FROM messages WHERE id = 'msg_crash') AS sent
                """).firstRow()
            return (try row.decode("jobs"), try row.decode("sent"))
        }
        #expect(jobs == 0)
        #expect(sent == total)
    }
}
