/// HTTP/1.1 runs one request per connection, so past `CURLMOPT_MAX_HOST_CONNECTIONS` an origin's
/// transfers would wait in libcurl's pending state, where each is set up again (its URL parsed,
/// a connection struct made and freed) every time libcurl retries it. They wait here instead, in
/// the order handed over, and the next of an origin is added to the multi handle when one of its
/// running transfers ends. Only transfers that cannot multiplex (`http://`, not `.http2`) count;
/// the driving thread's only.
struct HTTP1OriginQueue {
    private struct Origin {
        var running = 0
        /// Waiting transfers from `head` on (a FIFO without moving the array on each take).
        var waiting: [Transfer] = []
        var head = 0

        var waitingCount: Int { waiting.count - head }

        mutating func take() -> Transfer? {
            guard head < waiting.count else { return nil }
            let next = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return next
        }
    }

    /// Transfers running at once per origin (the client's `maxHostConnections`; 0: no queue).
    let limit: Int
    private var origins: [String: Origin] = [:]
    /// Transfers waiting, all origins.
    private(set) var waitingCount = 0
    /// No waiting transfer's deadline is before this (an earlier guess only costs a look).
    private(set) var earliestDeadline: ContinuousClock.Instant?

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { waitingCount == 0 }

    /// A transfer handed over: true if it may be added to the multi handle now (counted running
    /// if it is queued at all), false if it waits for a slot of its origin.
    mutating func admit(_ transfer: Transfer) -> Bool {
        guard limit > 0, transfer.cannotMultiplex else { return true }
        let key = CleartextHTTP2Origins.origin(of: transfer.url)
        transfer.http1Origin = key
        var entry = origins.removeValue(forKey: key) ?? Origin()
        defer { origins[key] = entry }
        if entry.running < limit {
            entry.running += 1
            return true
        }
        entry.waiting.append(transfer)
        waitingCount += 1
        if earliestDeadline.map({ transfer.deadline < $0 }) ?? true { earliestDeadline = transfer.deadline }
        return false
    }

    /// A transfer of `origin` ended (or never started): the next waiting one, which takes its
    /// slot, or nil when none waits.
    mutating func end(_ origin: String) -> Transfer? {
        guard var entry = origins.removeValue(forKey: origin) else { return nil }
        entry.running -= 1
        let next = entry.take()
        if next != nil {
            entry.running += 1
            waitingCount -= 1
            if waitingCount == 0 { earliestDeadline = nil }
        }
        if entry.running > 0 || entry.waitingCount > 0 { origins[origin] = entry }
        return next
    }

    /// Waiting transfers whose deadline has passed, taken out of their queues: they fail
    /// without running, however long the running ones take.
    mutating func expired(at now: ContinuousClock.Instant) -> [Transfer] {
        guard let earliest = earliestDeadline, earliest <= now else { return [] }
        var expired: [Transfer] = []
        var earliestLeft: ContinuousClock.Instant?
        for key in Array(origins.keys) {
            var entry = origins.removeValue(forKey: key)!
            guard entry.waitingCount > 0 else {
                origins[key] = entry
                continue
            }
            var kept: [Transfer] = []
            kept.reserveCapacity(entry.waitingCount)
            for transfer in entry.waiting[entry.head...] {
                if transfer.deadline <= now {
                    expired.append(transfer)
                } else {
                    kept.append(transfer)
                    if earliestLeft.map({ transfer.deadline < $0 }) ?? true { earliestLeft = transfer.deadline }
                }
            }
            entry.waiting = kept
            entry.head = 0
            origins[key] = entry
        }
        waitingCount -= expired.count
        earliestDeadline = earliestLeft
        return expired
    }
}
