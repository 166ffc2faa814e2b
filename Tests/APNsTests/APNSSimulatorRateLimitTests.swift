import Foundation
import Testing
@testable import APNs

/// `APNSSimulator.Configuration.maxRate`: a token bucket whose pushes over the cap wait for
/// their answer in arrival order, never refused.
@Suite struct APNSSimulatorRateLimitTests {
    @Test func theBucketGivesItsBurstAtOnceThenOneTokenPerInterval() {
        var limit = APNSSimulatorRateLimit(rate: 100, burst: 5)
        let dues = (0..<8).map { _ in limit.reserve(now: 10) }
        for (due, expected) in zip(dues, [10, 10, 10, 10, 10, 10.01, 10.02, 10.03]) {
            #expect(abs(due - expected) < 1e-9, "\(dues)")
        }
        // Requests that come later than their token wait for nothing; an idle bucket fills up again.
        #expect(limit.reserve(now: 11) == 11)
        let refilled = (0..<6).map { _ in limit.reserve(now: 20) }
        #expect(refilled.prefix(5).allSatisfy { abs($0 - 20) < 1e-9 }, "\(refilled)")
        #expect(abs(refilled[5] - 20.01) < 1e-9)
    }

    @Test func overAnyWindowAtMostTheBurstPlusTheRateAreAnswered() {
        var limit = APNSSimulatorRateLimit(rate: 4000)
        #expect(limit.burst == 80)
        // 20,000 requests at once: the last waits (20,000 − 80) / 4,000 s.
        let last = (0..<20_000).map { _ in limit.reserve(now: 0) }.last!
        #expect(abs(last - 19_920.0 / 4000) < 1e-6)
    }

    @Test func aCappedSimulatorAnswersEveryPushButNoFasterThanItsRate() async throws {
        let simulator = try APNSSimulator(.init(acceptAnyToken: true, maxRate: 200))
        try simulator.start()
        defer { simulator.stop() }
        let client = try APNSTestSupport.client(simulator.endpoint, connections: 2)
        let pushes = (0..<300).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }

        let results = await client.send(pushes, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()

        // None refused: over the cap a push waits.
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        let times = simulator.accepted().map(\.receivedAt.timeIntervalSince1970).sorted()
        #expect(times.count == 300)
        // Recorded when answered: the first 4 (the burst) at once, then one every 5 ms at most,
        // so the 300 span at least 296 intervals. A loaded machine only makes it longer.
        let span = times.last! - times.first!
        #expect(span >= 295.0 / 200, "300 pushes answered within \(span) s at a cap of 200/s")
    }
}
