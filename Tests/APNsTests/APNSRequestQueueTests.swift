import Testing
import OpenPushCore
@testable import APNs

/// The pool's request queue on its own: senders take turns for free streams, urgent ones first.
@Suite struct APNSRequestQueueTests {
    private static let a = APNSSender(tenant: "app-a")
    private static let b = APNSSender(tenant: "app-b")
    private static let aUrgent = APNSSender(tenant: "app-a", isUrgent: true)

    /// Requests named `name-0`, `name-1`, … (in the `:path`), for reading the order back.
    private func requests(_ name: String, _ count: Int, sender: APNSSender, deadline: Double = 100) -> [APNSPendingRequest] {
        (0..<count).map { index in
            APNSPendingRequest(
                headers: [(":method", "POST"), (":scheme", "http"), (":authority", "apns"), (":path", "\(name)-\(index)")],
                payload: [], sender: sender, deadline: deadline) { _ in }
        }
    }

    private func names(_ taken: [APNSPendingRequest]) -> [String] {
        taken.map { request in request.headers.first { $0.name == ":path" }!.value }
    }

    private func queue() -> (APNSRequestQueue, APNSClientCounters) {
        let counters = APNSClientCounters()
        return (APNSRequestQueue(connections: 1, counters: counters), counters)
    }

    @Test func anotherSendersPushTakesTheNextFreeStreamNotTheBackOfABacklog() {
        let (queue, counters) = queue()
        queue.enqueue(requests("a", 1000, sender: Self.a))
        queue.enqueue(requests("b", 1, sender: Self.b))

        // Streams come free one at a time, as a slow server answers.
        let firstTwo = names(queue.take(max: 1) + queue.take(max: 1))
        #expect(firstTwo.contains("b-0"), "\(firstTwo)")
        // A's order is kept, and the rest is still A's, in order.
        #expect(firstTwo.filter { $0.hasPrefix("a") } == ["a-0"])
        #expect(names(queue.take(max: 3)) == ["a-1", "a-2", "a-3"])
        #expect(queue.count == 996)
        #expect(counters.queuedRequests.load(ordering: .relaxed) == 996)
    }

    @Test func anUrgentPushOfTheSameAppGoesBeforeItsBulk() {
        let (queue, _) = queue()
        queue.enqueue(requests("bulk", 1000, sender: Self.a))
        queue.enqueue(requests("urgent", 2, sender: Self.aUrgent))

        #expect(names(queue.take(max: 1)) == ["urgent-0"])
        #expect(names(queue.take(max: 3)) == ["urgent-1", "bulk-0", "bulk-1"])
    }

    @Test func manyFreeStreamsAreSharedEvenlyAndTurnsGoOn() {
        let (queue, _) = queue()
        queue.enqueue(requests("a", 100, sender: Self.a))
        queue.enqueue(requests("b", 100, sender: Self.b))

        let taken = names(queue.take(max: 10))
        #expect(taken.filter { $0.hasPrefix("a") }.count == 5)
        #expect(taken.filter { $0.hasPrefix("b") }.count == 5)
        // One at a time, the senders alternate.
        let next = names((0..<4).flatMap { _ in queue.take(max: 1) })
        #expect(Set(next.map { $0.prefix(1) }) == ["a", "b"])
        #expect(next.filter { $0.hasPrefix("a") }.count == 2)
    }

    @Test func aSenderWithLittleLeftGivesItsShareToTheOthers() {
        let (queue, _) = queue()
        queue.enqueue(requests("a", 100, sender: Self.a))
        queue.enqueue(requests("b", 2, sender: Self.b))

        let taken = names(queue.take(max: 10))
        #expect(taken.count == 10)
        #expect(taken.filter { $0.hasPrefix("b") } == ["b-0", "b-1"])
        #expect(queue.count == 92)
    }

    @Test func aRetryGoesToTheFrontOfItsOwnSendersQueue() {
        let (queue, _) = queue()
        queue.enqueue(requests("a", 3, sender: Self.a))
        let first = queue.take(max: 1)
        queue.enqueue(requests("b", 1, sender: Self.b))
        queue.requeue(first)

        let all = names(queue.take(max: 10))
        #expect(all.filter { $0.hasPrefix("a") } == ["a-0", "a-1", "a-2"])
        #expect(all.contains("b-0"))
        #expect(queue.isEmpty)
    }

    @Test func expiryFailsOverdueRequestsOfEverySender() {
        let (queue, counters) = queue()
        queue.enqueue(requests("a", 3, sender: Self.a, deadline: 1))
        queue.enqueue(requests("b", 2, sender: Self.b, deadline: 5))
        queue.enqueue(requests("u", 1, sender: Self.aUrgent, deadline: 1))

        queue.expire(now: 2)
        #expect(queue.count == 2)
        #expect(counters.queuedRequests.load(ordering: .relaxed) == 2)
        #expect(names(queue.take(max: 10)) == ["b-0", "b-1"])
    }
}
