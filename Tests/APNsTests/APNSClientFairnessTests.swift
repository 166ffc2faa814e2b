import Foundation
import Testing
@testable import APNs
import APNsSimulator
import OpenPushCore

/// Issue 37, item 9: when APNs is the slow side (a rate-capped simulator), one sender's backlog
/// in the client is not another's wait. A's pushes fill the connection's streams and queue
/// behind them; B's push (another app, or an urgent push of A) must be answered before most of
/// A's queue. Asserted on the order the simulator accepted them, not on time.
@Suite struct APNSClientFairnessTests {
    private static let backlog = 600

    /// How many of A's pushes the simulator accepted after `other` was sent and before it was
    /// answered, and how many of A's were queued in the client then.
    private func acceptedBefore(other: APNSSender) async throws -> (before: Int, queuedWhenSent: Int) {
        // 50 pushes/s over 20 streams: A's backlog takes twelve seconds to drain, so half of it
        // is still queued for six, long enough for a loaded machine to see it.
        let simulator = try APNSSimulator(.init(acceptAnyToken: true, maxConcurrentStreams: 20, maxRate: 50))
        try simulator.start()
        defer { simulator.stop() }
        let client = try APNSTestSupport.client(simulator.endpoint)
        let credential = try APNSTestSupport.credential()

        let a = APNSSender(tenant: "app-a")
        let aPushes = (0..<Self.backlog).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }
        let sendingA = Task { await client.send(aPushes, credential: credential, environment: .sandbox, sender: a) }
        // Once the streams are taken, the rest of A waits in the client.
        #expect(try await client.waitForMetrics(timeout: 120) { $0.inFlightStreams > 0 && $0.queuedRequests >= Self.backlog / 2 })
        let acceptedAtSend = simulator.acceptedCount
        let queued = client.metrics.queuedRequests
        // Enough of A still waiting to tell a turn from the back of the queue.
        try #require(queued >= 100, "A's backlog was nearly gone before the other push was sent: \(queued) left")
        let otherToken = APNSTestSupport.token("c")
        let answer = try await client.send(
            APNSTestSupport.push(token: otherToken), credential: credential, environment: .sandbox, sender: other)
        #expect(answer.status == 200)
        let aResults = await sendingA.value
        await client.shutdown()
        #expect(aResults.allSatisfy { (try? $0.get().status) == 200 })

        let order = simulator.accepted().map(\.deviceToken)
        #expect(order.count == Self.backlog + 1)
        let position = try #require(order.firstIndex(of: otherToken))
        return (position - acceptedAtSend, queued)
    }

    @Test func anotherAppsPushIsAnsweredBeforeMostOfABacklogOnTheSameConnection() async throws {
        let (before, queued) = try await acceptedBefore(other: APNSSender(tenant: "app-b"))
        // Behind what was on the wire (20 streams) and the few answered while it was being
        // sent; one FIFO put it behind the whole queue (at least 100).
        #expect(before < 60, "B came after \(before) of A's pushes; \(queued) of A's were queued when B was sent")
    }

    @Test func anUrgentPushOfTheSameAppIsAnsweredBeforeMostOfItsBulk() async throws {
        let (before, queued) = try await acceptedBefore(other: APNSSender(tenant: "app-a", isUrgent: true))
        #expect(before < 60, "the urgent push came after \(before) of A's pushes; \(queued) of A's were queued when it was sent")
    }

    @Test func pushesWithoutASenderTakeTurnsByTopic() async throws {
        let simulator = try APNSSimulator(.init(acceptAnyToken: true, maxConcurrentStreams: 20, maxRate: 100))
        try simulator.start()
        defer { simulator.stop() }
        let client = try APNSTestSupport.client(simulator.endpoint)
        let credential = try APNSTestSupport.credential()

        let aPushes = (0..<Self.backlog).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }
        let sendingA = Task { await client.send(aPushes, credential: credential, environment: .sandbox) }
        #expect(try await client.waitForMetrics(timeout: 120) { $0.inFlightStreams > 0 && $0.queuedRequests >= Self.backlog / 2 })
        let acceptedAtSend = simulator.acceptedCount
        try #require(client.metrics.queuedRequests >= 100)
        var other = APNSTestSupport.push(token: APNSTestSupport.token("c"))
        other.request.headers.topic = "com.example.other.push-type.liveactivity"
        _ = try await client.send(other, credential: credential, environment: .sandbox)
        _ = await sendingA.value
        await client.shutdown()

        let position = try #require(simulator.accepted().map(\.deviceToken).firstIndex(of: other.deviceToken))
        #expect(position - acceptedAtSend < 60, "the other topic's push came after \(position - acceptedAtSend) more of A's")
    }
}
