/// The query of `GET /stats/throughput`: how far back (`window`) and how wide each bucket
/// (`step`). Every bad parameter is named in one `InvalidInput`.
package struct ThroughputRequest: Sendable, Equatable {
    package static let defaultWindow: Int64 = 15 * 60
    package static let defaultStep: Int64 = 10
    package static let maxWindow: Int64 = 24 * 3600
    package static let maxBuckets: Int64 = 1000

    package static let invalidWindow =
        "window must be a whole number of seconds, minutes or hours (10s, 15m, 24h) from 1s to 24h"
    package static let invalidStep =
        "step must be a whole number of seconds, minutes or hours (1s, 10s, 5m) from 1s to the window"
    package static let tooManyBuckets = "step is too small for the window: window / step must be at most \(maxBuckets) buckets"

    /// Seconds.
    package var window: Int64
    /// Seconds.
    package var step: Int64

    package init(window: Int64 = defaultWindow, step: Int64 = defaultStep) {
        self.window = window
        self.step = step
    }

    package static func read(_ query: [String: String]) throws(InvalidInput) -> ThroughputRequest {
        var problems: [String] = []
        var request = ThroughputRequest()
        if let text = query["window"] {
            if let seconds = StatsDuration.seconds(text), (1...maxWindow).contains(seconds) {
                request.window = seconds
            } else {
                problems.append(invalidWindow)
            }
        }
        if let text = query["step"] {
            if let seconds = StatsDuration.seconds(text), seconds >= 1 {
                request.step = seconds
            } else {
                problems.append(invalidStep)
            }
        }
        // The two together, once each is valid alone.
        if problems.isEmpty {
            if request.step > request.window {
                problems.append(invalidStep)
            } else if StatsBuckets.count(window: request.window, step: request.step) > maxBuckets {
                problems.append(tooManyBuckets)
            }
        }
        if !problems.isEmpty { throw InvalidInput(problems) }
        return request
    }

    /// The buckets that cover the window ending now.
    package func buckets(now: Double) -> StatsBuckets {
        StatsBuckets(now: now, window: window, step: step)
    }
}

/// The query of `GET /apps/{app_id}/stats`: how far back, 24 hours unless `window` says.
package struct AppStatsRequest: Sendable, Equatable {
    package static let defaultWindow: Int64 = 24 * 3600
    package static let maxWindow: Int64 = 30 * 86400
    package static let invalidWindow =
        "window must be a whole number of seconds, minutes, hours or days (15m, 24h, 7d) from 1s to 30d"

    /// Seconds.
    package var window: Int64

    package init(window: Int64 = defaultWindow) {
        self.window = window
    }

    package static func read(_ query: [String: String]) throws(InvalidInput) -> AppStatsRequest {
        guard let text = query["window"] else { return AppStatsRequest() }
        guard let seconds = StatsDuration.seconds(text), (1...maxWindow).contains(seconds) else {
            throw InvalidInput(invalidWindow)
        }
        return AppStatsRequest(window: seconds)
    }

    /// `[now - window, now)`, in whole unix seconds (the start rounded down, the end up).
    package func range(now: Double) -> (from: Int64, to: Int64) {
        let end = StatsBuckets.ceiling(now)
        return (end - window, end)
    }
}
