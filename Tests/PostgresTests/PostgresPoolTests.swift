import Foundation
import OpenPushTestSupport
import Testing
@testable import Postgres

@Suite struct PostgresPoolTests {
    @Test func moreConcurrentUsersThanConnectionsAllComplete() async throws {
        // Each waiter may wait behind the nine before it: in the parallel run, opening the two
        // connections and answering took longer than the default 5 s acquire timeout.
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 2, acquireTimeout: .seconds(60))
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await pool.query("SELECT pg_sleep(0.02), \(index)::int AS n").firstRow().decode("n", as: Int.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0..<20))
        let statistics = pool.statistics
        #expect(statistics == PostgresPoolStatistics(size: 2, open: 2, inUse: 0, waiting: 0))
        await pool.close()
    }

    @Test func statisticsCountOpenInUseAndWaiting() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        #expect(pool.statistics == PostgresPoolStatistics(size: 1, open: 0, inUse: 0, waiting: 0))

        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await pool.withConnection { connection in
                try connection.query("SELECT 1")
                release.wait()  // blocks the pool's own thread, never the cooperative pool
            }
        }
        try await waitUntil { pool.statistics.inUse == 1 }
        let waiter = Task { _ = try await pool.query("SELECT 2") }
        try await waitUntil { pool.statistics.waiting == 1 }
        #expect(pool.statistics == PostgresPoolStatistics(size: 1, open: 1, inUse: 1, waiting: 1))

        release.signal()
        try await holder.value
        try await waiter.value
        #expect(pool.statistics == PostgresPoolStatistics(size: 1, open: 1, inUse: 0, waiting: 0))
        await pool.close()
    }

    @Test func waitersTimeOut() async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(conninfo: database.conninfo, size: 1, acquireTimeout: .milliseconds(200))
        let release = DispatchSemaphore(value: 0)
        let holder = Task { try await pool.withConnection { _ in release.wait() } }
        try await waitUntil { pool.statistics.inUse == 1 }

        let start = ContinuousClock.now
        do {
            try await pool.query("SELECT 1")
            Issue.record("acquire should time out")
        } catch let error as PostgresError {
            #expect(error.kind == .poolTimeout)
        }
        let waited = ContinuousClock.now - start
        // 200 ms; a waiter that never times out waits as long as the holder, forever here.
        #expect(waited >= .milliseconds(150) && waited < .seconds(60))
        #expect(pool.statistics.waiting == 0)

        release.signal()
        try await holder.value
        #expect(try await pool.query("SELECT 1 AS one").firstRow().decode("one", as: Int.self) == 1)
        await pool.close()
    }

    @Test func transactionCommitsOnSuccess() async throws {
        let pool = try await TestDatabase.create().makePool()
        try await pool.query("CREATE TABLE items (name text PRIMARY KEY)")
        let count = try await pool.transaction { connection in
            try connection.query("INSERT INTO items VALUES (\("a"))")
            try connection.query("INSERT INTO items VALUES (\("b"))")
            return try connection.query("SELECT count(*) AS n FROM items").firstRow().decode("n", as: Int.self)
        }
        #expect(count == 2)
        #expect(try await pool.query("SELECT count(*) AS n FROM items").firstRow().decode("n", as: Int.self) == 2)
        await pool.close()
    }

    @Test func transactionRollsBackOnThrow() async throws {
        struct Abort: Error {}
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query("CREATE TABLE items (name text PRIMARY KEY)")
        await #expect(throws: Abort.self) {
            try await pool.transaction { connection in
                try connection.query("INSERT INTO items VALUES (\("doomed"))")
                throw Abort()
            }
        }
        #expect(try await pool.query("SELECT count(*) AS n FROM items WHERE name = \("doomed")").firstRow().decode("n", as: Int.self) == 0)
        // The connection went back to the pool outside any transaction.
        #expect(try await pool.query("SELECT 1 AS one").firstRow().decode("one", as: Int.self) == 1)
        await pool.close()
    }

    @Test func closedPoolRefuses() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        try await pool.query("SELECT 1")
        await pool.close()
        do {
            try await pool.query("SELECT 1")
            Issue.record("a closed pool should refuse")
        } catch let error as PostgresError {
            #expect(error.kind == .poolClosed)
        }
    }
}

/// Polls `condition` every 10 ms for up to `timeout`.
func waitUntil(timeout: Duration = .seconds(120), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
