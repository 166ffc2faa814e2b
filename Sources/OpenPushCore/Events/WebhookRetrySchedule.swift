/// When a failed webhook attempt is tried again: 5 s doubling to a 1 h cap, with jitter, for
/// 24 h from the first failure in a row; then the endpoint is disabled.
package struct WebhookRetrySchedule: Sendable, Equatable {
    package var baseDelay: Double
    package var maxDelay: Double
    /// How long an endpoint may fail in a row before it is disabled.
    package var window: Double

    package init(baseDelay: Double = 5, maxDelay: Double = 3600, window: Double = 24 * 3600) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.window = window
    }

    /// Seconds until the next attempt after `failures` failed in a row (1-based). `jitter` in
    /// [0, 1) spreads it over [½, 1] of the backoff, so endpoints that failed together do not
    /// all come back at once.
    package func delay(afterFailures failures: Int, jitter: Double) -> Double {
        let exponential = baseDelay * Double(1 << min(max(failures - 1, 0), 30))
        return min(maxDelay, exponential) * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    /// Whether an endpoint failing since `failingSince` (unix seconds) is past the window at `now`.
    package func isExhausted(failingSince: Double, now: Double) -> Bool {
        now - failingSince > window
    }

    /// What to do after another failed attempt.
    package enum Decision: Sendable, Equatable {
        /// Try again this many seconds from now.
        case retry(after: Double)
        /// Failing for longer than the window: disable the endpoint and drop its pending events.
        case disable
    }

    /// The decision after a failed attempt at `now` (unix seconds), given the failures in a row
    /// before it (`previousFailures`) and when that streak began (`failingSince`, nil when this
    /// failure starts one).
    package func afterFailure(previousFailures: Int, failingSince: Double?, now: Double, jitter: Double) -> Decision {
        if let failingSince, isExhausted(failingSince: failingSince, now: now) { return .disable }
        return .retry(after: delay(afterFailures: failingSince == nil ? 1 : previousFailures + 1, jitter: jitter))
    }

    /// The `disabled_reason` of an endpoint given up on; `lastFailure` says what the last attempt got.
    package static func disabledReason(lastFailure: String) -> String {
        "failing for 24 hours: \(lastFailure)"
    }
}
