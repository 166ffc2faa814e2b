/// Numbers for `/metrics` and tests.
public struct PostgresPoolStatistics: Sendable, Equatable {
    /// The configured maximum number of connections.
    public var size: Int
    /// Connections open or being opened.
    public var open: Int
    /// Connections lent out right now.
    public var inUse: Int
    /// Callers queued for a connection.
    public var waiting: Int
}

/// The pool's bookkeeping without I/O: each event returns what the pool must then do.
/// A slot is one of `size` places for a connection; each slot has its own thread in the pool.
struct PostgresPoolState<Connection, Waiter> {
    enum Grant {
        /// Use this idle connection (check it first).
        case idle(Connection, slot: Int)
        /// The slot is reserved: open a new connection in it.
        case connect(slot: Int)
    }

    enum AcquireAction {
        case grant(Grant)
        case wait
        case fail(PostgresError)
    }

    enum ReleaseAction {
        case none
        case grant(Grant, to: Waiter)
        case close(Connection, slot: Int)
    }

    let size: Int
    private var idle: [(connection: Connection, slot: Int)] = []
    private var freeSlots: [Int]
    private var waiters: [(id: Int, waiter: Waiter)] = []
    private var isClosed = false

    init(size: Int) {
        self.size = size
        self.freeSlots = Array((0..<size).reversed())
    }

    var statistics: PostgresPoolStatistics {
        let open = size - freeSlots.count
        return PostgresPoolStatistics(size: size, open: open, inUse: open - idle.count, waiting: waiters.count)
    }

    /// Most recently used idle connection first (warm, least likely to have been dropped);
    /// otherwise open lazily; otherwise queue.
    mutating func acquire(id: Int, waiter: Waiter) -> AcquireAction {
        if isClosed { return .fail(.poolClosed) }
        if let (connection, slot) = idle.popLast() { return .grant(.idle(connection, slot: slot)) }
        if let slot = freeSlots.popLast() { return .grant(.connect(slot: slot)) }
        waiters.append((id, waiter))
        return .wait
    }

    /// Gives a slot back, with its connection when it is still usable, or nil when discarded.
    /// Waiters are served first come, first served.
    mutating func release(slot: Int, connection: Connection?) -> ReleaseAction {
        if !waiters.isEmpty {
            let (_, waiter) = waiters.removeFirst()
            if let connection { return .grant(.idle(connection, slot: slot), to: waiter) }
            return .grant(.connect(slot: slot), to: waiter)
        }
        guard let connection else {
            freeSlots.append(slot)
            return .none
        }
        if isClosed {
            freeSlots.append(slot)
            return .close(connection, slot: slot)
        }
        idle.append((connection, slot))
        return .none
    }

    /// Removes a waiter that timed out or was cancelled; nil when it was already served.
    mutating func removeWaiter(id: Int) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    /// Closes the pool: waiters to fail and idle connections to close are returned.
    mutating func close() -> (waiters: [Waiter], idle: [(connection: Connection, slot: Int)]) {
        isClosed = true
        let result = (waiters.map(\.waiter), idle)
        freeSlots += idle.map(\.slot)
        waiters = []
        idle = []
        return result
    }
}
