import Testing
import OpenPushCore

@Suite struct RetryPolicyTests {
    @Test func doublesUpToTheCapWithJitterInTheUpperHalf() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 1, maxDelay: 60)
        #expect(policy.delay(afterAttempt: 1, jitter: 1) == 1)
        #expect(policy.delay(afterAttempt: 2, jitter: 1) == 2)
        #expect(policy.delay(afterAttempt: 3, jitter: 1) == 4)
        #expect(policy.delay(afterAttempt: 3, jitter: 0) == 2)
        #expect(policy.delay(afterAttempt: 7, jitter: 1) == 60)
        #expect(policy.delay(afterAttempt: 9, jitter: 0.5) == 45)
    }

    @Test func stopsAfterTheLastAttempt() {
        let policy = RetryPolicy(maxAttempts: 3)
        #expect(policy.delay(afterAttempt: 2, jitter: 0) != nil)
        #expect(policy.delay(afterAttempt: 3, jitter: 0) == nil)
        #expect(policy.delay(afterAttempt: 4, jitter: 0) == nil)
    }
}
