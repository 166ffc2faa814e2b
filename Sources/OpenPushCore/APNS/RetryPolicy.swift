/// When a delivery that failed for a passing reason (5xx, 429, a lost connection) is tried
/// again: capped exponential backoff with jitter, up to a maximum number of attempts.
package struct RetryPolicy: Sendable, Equatable {
    package var maxAttempts: Int
    package var baseDelay: Double
    package var maxDelay: Double

    package init(maxAttempts: Int = 8, baseDelay: Double = 1, maxDelay: Double = 60) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Seconds to wait after the `attempt`-th try failed (1-based), or nil when it was the last.
    /// `jitter` in [0, 1) spreads retries over [½, 1] of the backoff, so a burst of failures does
    /// not come back as a burst.
    package func delay(afterAttempt attempt: Int, jitter: Double) -> Double? {
        guard attempt < maxAttempts else { return nil }
        let exponential = baseDelay * Double(1 << min(max(attempt - 1, 0), 30))
        let capped = min(maxDelay, exponential)
        return capped * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }
}
