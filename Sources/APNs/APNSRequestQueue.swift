import Synchronization

/// The requests of one pool waiting for a stream, shared by the pool's connections: each
/// connection takes as many as it has free streams, so the server's concurrency limit holds
/// per connection and the load spreads over whichever connections have room. Retries go to
/// the front. Completions are called outside the lock.
final class APNSRequestQueue: Sendable {
    enum ConnectionStatus: Sendable {
        case down, connecting, up
    }

    private struct State {
        var items: [APNSPendingRequest] = []
        /// Items before this index have been taken; compacted now and then.
        var head = 0
        var statuses: [ConnectionStatus]
        var isShutDown = false

        var count: Int { items.count - head }

        mutating func compact() {
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024, head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
        }
    }

    private let state: Mutex<State>
    let wakers: [APNSWakeSignal]

    init(connections: Int) {
        wakers = (0..<connections).map { _ in APNSWakeSignal() }
        state = Mutex(State(statuses: Array(repeating: .down, count: connections)))
    }

    var isEmpty: Bool { state.withLock { $0.count == 0 } }
    var count: Int { state.withLock { $0.count } }

    /// New requests, at the back.
    func enqueue(_ newItems: [APNSPendingRequest]) {
        let accepted = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            state.items.append(contentsOf: newItems)
            return true
        }
        guard accepted else {
            for item in newItems { item.complete(.failure(APNSTransportError(.shutdown, "the APNs client is shut down"))) }
            return
        }
        wakeAll()
    }

    /// Requests coming back from a connection, at the front: they have waited longest.
    func requeue(_ returned: [APNSPendingRequest]) {
        guard !returned.isEmpty else { return }
        let accepted = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            if state.head >= returned.count {
                state.items.replaceSubrange((state.head - returned.count)..<state.head, with: returned)
                state.head -= returned.count
            } else {
                state.items.removeFirst(state.head)
                state.head = 0
                state.items.insert(contentsOf: returned, at: 0)
            }
            return true
        }
        guard accepted else {
            for item in returned { item.complete(.failure(APNSTransportError(.shutdown, "the APNs client is shut down"))) }
            return
        }
        wakeAll()
    }

    func take(max: Int) -> [APNSPendingRequest] {
        guard max > 0 else { return [] }
        return state.withLock { state in
            let count = min(max, state.count)
            guard count > 0 else { return [] }
            let taken = Array(state.items[state.head..<(state.head + count)])
            state.head += count
            state.compact()
            return taken
        }
    }

    func setStatus(_ status: ConnectionStatus, of index: Int) {
        state.withLock { $0.statuses[index] = status }
    }

    /// After connection `index` failed to connect: if no other connection is up or on its
    /// way, nobody will serve the queue soon, so fail it now and let the caller back off.
    func connectFailed(index: Int, error: APNSTransportError) {
        let failed = state.withLock { state -> [APNSPendingRequest] in
            state.statuses[index] = .down
            guard !state.statuses.contains(where: { $0 != .down }) else { return [] }
            let failed = Array(state.items[state.head...])
            state.items.removeAll(keepingCapacity: true)
            state.head = 0
            return failed
        }
        for item in failed { item.complete(.failure(error)) }
    }

    /// Fails the requests at the front whose deadline has passed. Items are in deadline order
    /// but for retries at the front, so stopping at the first live one is close enough.
    func expire(now: Double) {
        let expired = state.withLock { state -> [APNSPendingRequest] in
            var index = state.head
            while index < state.items.count, state.items[index].deadline <= now { index += 1 }
            let expired = Array(state.items[state.head..<index])
            state.head = index
            state.compact()
            return expired
        }
        for item in expired { item.complete(.failure(APNSTransportError(.timeout, "no stream free before the request timeout"))) }
    }

    /// Refuses new work and fails what is waiting.
    func shutdown() {
        let failed = state.withLock { state -> [APNSPendingRequest] in
            state.isShutDown = true
            let failed = Array(state.items[state.head...])
            state.items = []
            state.head = 0
            return failed
        }
        for item in failed { item.complete(.failure(APNSTransportError(.shutdown, "the APNs client is shut down"))) }
        wakeAll()
    }

    private func wakeAll() {
        for waker in wakers { waker.wake() }
    }
}
