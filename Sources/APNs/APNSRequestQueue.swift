import OpenPushCore
import Synchronization

/// The requests of one pool waiting for a stream, shared by the pool's connections: each
/// connection takes as many as it has free streams, so the server's concurrency limit holds
/// per connection and the load spreads over whichever connections have room.
///
/// Requests wait per `APNSSender` (in order within one), and the senders take turns for the
/// streams that come free, urgent senders before the others: when APNs is slow, another app's
/// push (or an urgent one) waits behind what is already on the wire, not behind all of a busy
/// app's queue, as it did with one FIFO. Retries go to the front of their sender's queue.
///
/// Not thread-safe: the event loop's thread owns it; only the gauge it keeps is read elsewhere.
final class APNSRequestQueue {
    enum ConnectionStatus: Sendable {
        case down, connecting, up
    }

    /// One sender's requests, in order.
    private final class Line {
        let sender: APNSSender
        var items: [APNSPendingRequest] = []
        /// Items before this index have been taken; compacted now and then.
        var head = 0

        init(sender: APNSSender) { self.sender = sender }

        var count: Int { items.count - head }

        func take(_ count: Int) -> [APNSPendingRequest] {
            // A copy, not a slice: a slice would keep `items` shared, and compacting it would
            // then allocate a new buffer every time.
            let taken = Array(items[head..<(head + count)])
            head += count
            compact()
            return taken
        }

        func pushFront(_ returned: [APNSPendingRequest]) {
            if head >= returned.count {
                items.replaceSubrange((head - returned.count)..<head, with: returned)
                head -= returned.count
            } else {
                items.removeFirst(head)
                head = 0
                items.insert(contentsOf: returned, at: 0)
            }
        }

        func compact() {
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024, head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
        }
    }

    /// The senders with requests waiting, in turn order; `next` is whose turn comes first.
    private struct Turns {
        var lines: [Line] = []
        var next = 0
    }

    private var lines: [APNSSender: Line] = [:]
    private var urgent = Turns()
    private var regular = Turns()
    private(set) var count = 0
    private var statuses: [ConnectionStatus]
    private var shutdownError: APNSTransportError?
    /// Holds the client-wide gauge of waiting requests.
    private let counters: APNSClientCounters

    init(connections: Int, counters: APNSClientCounters) {
        statuses = Array(repeating: .down, count: connections)
        self.counters = counters
    }

    var isEmpty: Bool { count == 0 }

    /// New requests, at the back of their sender's queue.
    func enqueue(_ newItems: [APNSPendingRequest]) {
        guard shutdownError == nil else { return fail(newItems) }
        guard !newItems.isEmpty else { return }
        // A batch is nearly always one sender's: append runs of the same sender at once.
        var start = 0
        while start < newItems.count {
            let sender = newItems[start].sender
            var end = start + 1
            while end < newItems.count, newItems[end].sender == sender { end += 1 }
            line(for: sender).items.append(contentsOf: newItems[start..<end])
            start = end
        }
        count += newItems.count
        counters.queuedRequests.add(newItems.count, ordering: .relaxed)
    }

    /// Requests coming back from a connection, at the front of their sender's queue: they have
    /// waited longest.
    func requeue(_ returned: [APNSPendingRequest]) {
        guard !returned.isEmpty else { return }
        guard shutdownError == nil else { return fail(returned) }
        var bySender: [APNSSender: [APNSPendingRequest]] = [:]
        for item in returned { bySender[item.sender, default: []].append(item) }
        for (sender, items) in bySender { line(for: sender).pushFront(items) }
        count += returned.count
        counters.queuedRequests.add(returned.count, ordering: .relaxed)
    }

    /// Up to `max` requests for free streams: urgent senders first, then the others, each
    /// group's senders sharing what is left evenly, taking turns from where the last take
    /// stopped (so a stream freed one at a time goes to each sender in turn).
    func take(max: Int) -> [APNSPendingRequest] {
        guard max > 0, count > 0 else { return [] }
        var taken = take(max, from: &urgent)
        if taken.count < max { taken += take(max - taken.count, from: &regular) }
        count -= taken.count
        counters.queuedRequests.subtract(taken.count, ordering: .relaxed)
        return taken
    }

    private func take(_ wanted: Int, from turns: inout Turns) -> [APNSPendingRequest] {
        // The common case, one sender: one copy, as a single FIFO did.
        if turns.lines.count == 1 {
            let line = turns.lines[0]
            let taken = line.take(min(wanted, line.count))
            if line.count == 0 { remove(at: 0, from: &turns) }
            return taken
        }
        var taken: [APNSPendingRequest] = []
        while taken.count < wanted, !turns.lines.isEmpty {
            // An even share for each sender this round (at least one), starting with whose turn it is.
            let share = Swift.max(1, (wanted - taken.count) / turns.lines.count)
            var visited = turns.lines.count
            while visited > 0, taken.count < wanted, !turns.lines.isEmpty {
                visited -= 1
                if turns.next >= turns.lines.count { turns.next = 0 }
                let line = turns.lines[turns.next]
                taken += line.take(Swift.min(share, line.count, wanted - taken.count))
                if line.count == 0 {
                    remove(at: turns.next, from: &turns)
                } else {
                    turns.next += 1
                }
            }
        }
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

    /// Fails the requests at the front of each sender's queue whose deadline has passed. Items
    /// are in deadline order but for retries at the front, so stopping at the first live one
    /// is close enough.
    func expire(now: Double) {
        var expired: [APNSPendingRequest] = []
        for line in Array(lines.values) {
            var index = line.head
            while index < line.items.count, line.items[index].deadline <= now { index += 1 }
            guard index > line.head else { continue }
            expired += line.take(index - line.head)
            if line.count == 0 { forget(line) }
        }
        guard !expired.isEmpty else { return }
        count -= expired.count
        counters.queuedRequests.subtract(expired.count, ordering: .relaxed)
        for item in expired { item.complete(.failure(APNSTransportError(.timeout, "no stream free before the request timeout"))) }
    }

    /// Refuses new work from now on (failing it with `error`) and fails what is waiting.
    func shutdown(_ error: APNSTransportError) {
        shutdownError = error
        failAll(error)
    }

    private func failAll(_ error: APNSTransportError) {
        let failed = (urgent.lines + regular.lines).flatMap { $0.items[$0.head...] }
        counters.queuedRequests.subtract(failed.count, ordering: .relaxed)
        lines = [:]
        urgent = Turns()
        regular = Turns()
        count = 0
        for item in failed { item.complete(.failure(error)) }
    }

    private func fail(_ refused: [APNSPendingRequest]) {
        for item in refused { item.complete(.failure(shutdownError!)) }
    }

    /// The sender's queue, made (and given the last turn of its group) when it had none.
    private func line(for sender: APNSSender) -> Line {
        if let line = lines[sender] { return line }
        let line = Line(sender: sender)
        lines[sender] = line
        if sender.isUrgent {
            insertLast(line, into: &urgent)
        } else {
            insertLast(line, into: &regular)
        }
        return line
    }

    /// Just before whose turn is next: a newcomer waits one round, not behind every sender
    /// after the current one, and does not cut in line either.
    private func insertLast(_ line: Line, into turns: inout Turns) {
        if turns.next >= turns.lines.count { turns.next = 0 }
        turns.lines.insert(line, at: turns.next)
        turns.next += 1
    }

    private func remove(at index: Int, from turns: inout Turns) {
        lines[turns.lines[index].sender] = nil
        turns.lines.remove(at: index)
        if turns.next > index { turns.next -= 1 }
    }

    /// Drops an emptied sender's queue (from `expire`, outside a take).
    private func forget(_ line: Line) {
        if let index = urgent.lines.firstIndex(where: { $0 === line }) {
            remove(at: index, from: &urgent)
        } else if let index = regular.lines.firstIndex(where: { $0 === line }) {
            remove(at: index, from: &regular)
        }
    }
}
