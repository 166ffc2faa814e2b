import Dispatch

/// A fixed-size pool of libpq connections. libpq blocks, so each slot has its own serial
/// dispatch queue (an overcommitting thread, never Swift's cooperative pool); callers await a
/// continuation while their synchronous body runs there.
public final class PostgresPool: Sendable {
    fileprivate typealias State = PostgresPoolState<ConnectionBox, CheckedContinuation<Lease, any Error>>

    private let conninfo: String
    private let timeouts: PostgresTimeouts
    private let settingsScope: PostgresSettingsScope
    private let acquireTimeout: Duration
    private let queues: [DispatchQueue]
    private let state: Locked<State>
    private let waiterIDs = Locked(0)
    private let sent = Locked(PostgresTraffic())

    /// `timeouts` bound every connection the pool opens (see `PostgresTimeouts`); a connection
    /// whose reply is overdue is closed and its caller gets a connection failure.
    /// `settingsScope` is `.transaction` when `conninfo` leads to a transaction pooler (PgBouncer
    /// `pool_mode = transaction`): no connection then keeps any setting on its session.
    public init(conninfo: String, size: Int, acquireTimeout: Duration = .seconds(5),
                timeouts: PostgresTimeouts = PostgresTimeouts(), settingsScope: PostgresSettingsScope = .session) {
        precondition(size > 0, "a pool needs at least one connection")
        self.conninfo = conninfo
        self.timeouts = timeouts
        self.settingsScope = settingsScope
        self.acquireTimeout = acquireTimeout
        self.queues = (0..<size).map { DispatchQueue(label: "openpush.postgres.pool.slot\($0)") }
        self.state = Locked(State(size: size))
    }

    public var statistics: PostgresPoolStatistics {
        state.withLock { $0.statistics }
    }

    /// What the pool's callers have sent so far (a connection's own setup not included).
    public var traffic: PostgresTraffic {
        sent.withLock { $0 }
    }

    /// Lends a connection to `body`, which runs synchronously on the connection's own thread.
    /// A connection that failed is discarded; the next caller opens a fresh one.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let lease = try await acquire()
        return try await withCheckedThrowingContinuation { continuation in
            queues[lease.slot].async {
                continuation.resume(with: Result { try self.run(lease, body) })
            }
        }
    }

    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await withConnection { try $0.query(query) }
    }

    /// `BEGIN`; body; `COMMIT` — `ROLLBACK` when body (or `COMMIT`) throws, then rethrows.
    /// `durability`: whether `COMMIT` waits for the WAL flush (`CommitDurability`).
    public func transaction<T: Sendable>(durability: CommitDurability = .flushed,
                                         _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection { connection in
            try connection.begin(durability: durability)
            do {
                let value = try body(connection)
                try connection.query("COMMIT")
                return value
            } catch {
                if connection.isHealthy { _ = try? connection.query("ROLLBACK") }
                throw error
            }
        }
    }

    /// `SELECT pg_notify(channel, payload)`; delivered when the surrounding transaction commits.
    public func notify(channel: String, payload: String) async throws {
        try await query("SELECT pg_notify(\(channel), \(payload))")
    }

    /// Fails waiters and closes idle connections; connections in use close when returned.
    public func close() async {
        let (waiters, idle) = state.withLock { $0.close() }
        for waiter in waiters {
            waiter.resume(throwing: PostgresError.poolClosed)
        }
        for (box, slot) in idle {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queues[slot].async {
                    box.connection.close()
                    continuation.resume()
                }
            }
        }
    }

    // MARK: - Leasing

    /// A slot, with the idle connection it holds or nil when one must be opened.
    fileprivate struct Lease: Sendable {
        var slot: Int
        var connection: ConnectionBox?

        init(_ grant: State.Grant) {
            switch grant {
            case .idle(let box, let slot): (self.slot, self.connection) = (slot, box)
            case .connect(let slot): (self.slot, self.connection) = (slot, nil)
            }
        }
    }

    private func acquire() async throws -> Lease {
        let id = waiterIDs.withLock { id in
            id += 1
            return id
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                let action: State.AcquireAction? = state.withLock { state in
                    // Checked under the lock: a concurrent cancel either finds the waiter queued or is seen here.
                    Task.isCancelled ? nil : state.acquire(id: id, waiter: continuation)
                }
                switch action {
                case nil:
                    continuation.resume(throwing: CancellationError())
                case .grant(let grant):
                    continuation.resume(returning: Lease(grant))
                case .fail(let error):
                    continuation.resume(throwing: error)
                case .wait:
                    scheduleTimeout(for: id)
                }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(id: id) }?.resume(throwing: CancellationError())
        }
    }

    private func scheduleTimeout(for id: Int) {
        let (seconds, attoseconds) = acquireTimeout.components
        let nanoseconds = Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.state.withLock { $0.removeWaiter(id: id) }?.resume(throwing: PostgresError.poolTimeout)
        }
    }

    /// Runs on the slot's thread: connect or check, run the body, give the slot back.
    private func run<T>(_ lease: Lease, _ body: (PostgresConnection) throws -> T) throws -> T {
        let connection: PostgresConnection
        do {
            if let idle = lease.connection?.connection, idle.checkAlive() {
                connection = idle
            } else {
                lease.connection?.connection.close()
                connection = try PostgresConnection.connect(conninfo, timeouts: timeouts, scope: settingsScope)
            }
        } catch {
            release(slot: lease.slot, connection: nil)
            throw error
        }
        let before = connection.traffic
        defer {
            let spent = connection.traffic - before
            sent.withLock { $0 = $0 + spent }
        }
        do {
            let value = try body(connection)
            release(slot: lease.slot, connection: connection.resetForReuse() ? connection : nil)
            return value
        } catch {
            let broken = (error as? PostgresError)?.isConnectionFailure ?? false
            release(slot: lease.slot, connection: !broken && connection.resetForReuse() ? connection : nil)
            throw error
        }
    }

    private func release(slot: Int, connection: PostgresConnection?) {
        // A discarded connection is freed by deinit when `run` returns, still on this thread.
        let action = state.withLock { $0.release(slot: slot, connection: connection.map(ConnectionBox.init)) }
        switch action {
        case .none:
            break
        case .grant(let grant, let waiter):
            waiter.resume(returning: Lease(grant))
        case .close(let box, _):
            box.connection.close()  // already on this slot's thread
        }
    }
}

/// Moves a connection between the pool's threads. Safe because a connection is only ever
/// used by the one slot queue that holds it.
private struct ConnectionBox: @unchecked Sendable {
    let connection: PostgresConnection
}
