import Testing
import OpenPushServer
import OpenPushTestSupport
import Postgres
import Synchronization

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
        // The drain starts once the lock is taken (a flag, not a window of the sleep to catch,
        // which a loaded machine's polling can miss).
        let holder = PostgresPool(conninfo: harness.app.conninfo, size: 1)
        let locked = LockTaken()
        let holding = Task {
            try await holder.transaction { connection in
                try connection.query("SELECT 1 FROM messages WHERE id = 'msg_crash' FOR UPDATE")
                locked.value.withLock { $0 = true }
                try connection.query("SELECT pg_sleep(2.5)")
            }
        }
        #expect(try await DeliveryResilienceTests.waitUntil(.seconds(120)) { locked.value.withLock { $0 } })

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

/// Set by the session that holds the lock, read by the test.
private final class LockTaken: Sendable {
    let value = Mutex(false)
}
