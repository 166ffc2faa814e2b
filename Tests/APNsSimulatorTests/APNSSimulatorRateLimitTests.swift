import Foundation
import Testing
@testable import APNsSimulator

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
}
