import Foundation
import Testing
@testable import Postgres

/// Stops and restarts a private cluster (never the shared one: other tests run concurrently).
@Suite struct PostgresOutageTests {
    @Test func poolAndListenerRecoverAfterRestart() async throws {
        let directory = NSTemporaryDirectory() + "openpush-outage-" + UUID().uuidString.prefix(8).lowercased()
        var cluster = PostgresCluster(directory: directory)
        // Only the Unix socket of its own directory (the conninfo's host), no TCP listener: while
        // the server is stopped, another test may be given its port on 127.0.0.1, and the restart
        // would fail. This `-c listen_addresses` comes after, and overrides, the built-in one.
        cluster.settings = ["fsync": "off", "shared_buffers": "16MB", "listen_addresses": ""]
        let started = cluster
        defer {
            try? started.stop(mode: .immediate)
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await blocking {
            try started.initializeIfNeeded()
            try started.start()
        }
        #expect(cluster.isRunning)

        let pool = PostgresPool(conninfo: cluster.conninfo, size: 2)
        let listener = PostgresListener(conninfo: cluster.conninfo, channels: ["outage"])
        defer { listener.stop() }
        #expect(try await pool.query("SELECT 1 AS one").firstRow().decode("one", as: Int.self) == 1)
        _ = try await expectNotification(on: listener, channel: "outage", payload: "before") {
            try await pool.notify(channel: "outage", payload: "before")
        }

        // Down: the pooled connection is dead and new ones are refused, quickly.
        try await blocking { try started.stop(mode: .immediate) }
        #expect(!cluster.isRunning)
        for _ in 0..<3 {
            let start = ContinuousClock.now
            do {
                try await pool.query("SELECT 1")
                Issue.record("a query against a stopped server should fail")
            } catch let error as PostgresError {
                #expect(error.isConnectionFailure, "\(error)")
            }
            // A refused connection fails at once; the bound only tells that from a query that
            // hangs on the dead server, with room for the parallel run's load (1.5 s was missed).
            #expect(ContinuousClock.now - start < .seconds(60))
        }
        #expect(pool.statistics.inUse == 0)

        // Up again: the same pool connects again without being recreated.
        try await blocking { try started.start() }
        // Generous for a loaded machine; a pool that never reconnects fails it all the same.
        let deadline = ContinuousClock.now + .seconds(120)
        var recovered = false
        while !recovered, ContinuousClock.now < deadline {
            recovered = (try? await pool.query("SELECT 1")) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered)

        // The listener reconnected and listens again.
        let received = try await expectNotification(on: listener, channel: "outage", payload: "after") {
            try await pool.notify(channel: "outage", payload: "after")
        }
        #expect(received?.payload == "after")
        await pool.close()
    }
}

/// initdb and pg_ctl block: run them on a thread of their own.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
