import Synchronization

/// The requests of one pool waiting for a stream, shared by the pool's connections: each
/// connection takes as many as it has free streams, so the server's concurrency limit holds
/// per connection and the load spreads over whichever connections have room. Retries go to
/// the front.
///
/// Not thread-safe: the event loop's thread owns it; only the gauge it keeps is read elsewhere.
final class APNSRequestQueue {
    enum ConnectionStatus: Sendable {
        case down, connecting, up
    }

    private var items: [APNSPendingRequest] = []
    /// Items before this index have been taken; compacted now and then.
    private var head = 0
    private var statuses: [ConnectionStatus]
    private var shutdownError: APNSTransportError?
    /// Holds the client-wide gauge of waiting requests.
    private let counters: APNSClientCounters

    init(connections: Int, counters: APNSClientCounters) {
        statuses = Array(repeating: .down, count: connections)
        self.counters = counters
    }

    var isEmpty: Bool { count == 0 }
    var count: Int { items.count - head }

    /// New requests, at the back.
    func enqueue(_ newItems: [APNSPendingRequest]) {
        guard shutdownError == nil else { return fail(newItems) }
        items.append(contentsOf: newItems)
        counters.queuedRequests.add(newItems.count, ordering: .relaxed)
    }

    /// Requests coming back from a connection, at the front: they have waited longest.
    func requeue(_ returned: [APNSPendingRequest]) {
        guard !returned.isEmpty else { return }
        guard shutdownError == nil else { return fail(returned) }
        if head >= returned.count {
            items.replaceSubrange((head - returned.count)..<head, with: returned)
            head -= returned.count
        } else {
            items.removeFirst(head)
            head = 0
            items.insert(contentsOf: returned, at: 0)
        }
        counters.queuedRequests.add(returned.count, ordering: .relaxed)
    }

    func take(max: Int) -> [APNSPendingRequest] {
        let count = min(max, self.count)
        guard count > 0 else { return [] }
        // A copy, not a slice: a slice would keep `items` shared, and compacting it would then
        // allocate a new buffer every time.
        let taken = Array(items[head..<(head + count)])
        head += count
        counters.queuedRequests.subtract(count, ordering: .relaxed)
        compact()
        return taken
    }

    func setStatus(_ status: ConnectionStatus, of index: Int) {
        statuses[index] = status
    }

    /// After connection `index` failed to connect: if no other connection is up or on its
    /// way, nobody will serve the queue soon, so fail it now and let the caller back off.
    func connectFailed(index: Int, error: APNSTransportError) {
        statuses[index] = .down
        guard !statuses.contains(where: { $0 != .down }) else { return }
        failAll(error)
    }

    /// Fails the requests at the front whose deadline has passed. Items are in deadline order
    /// but for retries at the front, so stopping at the first live one is close enough.
    func expire(now: Double) {
        var index = head
        while index < items.count, items[index].deadline <= now { index += 1 }
        guard index > head else { return }
        let expired = Array(items[head..<index])
        head = index
        counters.queuedRequests.subtract(expired.count, ordering: .relaxed)
        compact()
        for item in expired { item.complete(.failure(APNSTransportError(.timeout, "no stream free before the request timeout"))) }
    }

    /// Refuses new work from now on (failing it with `error`) and fails what is waiting.
    func shutdown(_ error: APNSTransportError) {
        shutdownError = error
        failAll(error)
    }

    private func failAll(_ error: APNSTransportError) {
        let failed = Array(items[head...])
        counters.queuedRequests.subtract(failed.count, ordering: .relaxed)
        items = []
        head = 0
        for item in failed { item.complete(.failure(error)) }
    }

    private func fail(_ refused: [APNSPendingRequest]) {
        for item in refused { item.complete(.failure(shutdownError!)) }
    }

    private func compact() {
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
