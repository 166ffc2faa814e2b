import Testing
import OpenPushCore

@Suite struct LinkFailureLimitTests {
    let limit = LinkFailureLimit(failures: 3, window: 600)

    @Test func triesFreelyBelowTheLimit() {
        #expect(limit.retryAfter(failedAt: [], now: 1000) == nil)
        #expect(limit.retryAfter(failedAt: [900, 950], now: 1000) == nil)
        // Failures older than the window do not count.
        #expect(limit.retryAfter(failedAt: [100, 200, 300, 950, 990], now: 1000) == nil)
    }

    @Test func waitsUntilTheOldestCountingFailureLeavesTheWindow() {
        #expect(limit.retryAfter(failedAt: [990, 500, 700], now: 1000) == 100)
        #expect(limit.retryAfter(failedAt: [500, 700, 990], now: 1099.5) == 1)
        #expect(limit.retryAfter(failedAt: [500, 700, 990], now: 1100) == nil)
        // More failures than the limit: enough of them must age out to get below it.
        #expect(limit.retryAfter(failedAt: [500, 700, 800, 990], now: 1000) == 300)
    }

    @Test func answersWholeSecondsOfAtLeastOne() {
        #expect(limit.retryAfter(failedAt: [400.2, 700, 990], now: 1000) == 1)
        #expect(limit.retryAfter(failedAt: [400.5, 700, 990], now: 1000.1) == 1)
        #expect(limit.retryAfter(failedAt: [450.25, 700, 990], now: 1000) == 51)
    }

    @Test func theStandardLimitIsTenPerTenMinutes() {
        #expect(LinkFailureLimit.standard == LinkFailureLimit(failures: 10, window: 600))
    }
}
