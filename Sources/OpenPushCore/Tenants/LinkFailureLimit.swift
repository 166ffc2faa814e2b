/// How many wrong link codes one device may try: `failures` within any `window` seconds, then
/// it waits. With 60-bit codes this makes guessing another tenant's code hopeless, while a
/// person who mistypes a few times never notices.
package struct LinkFailureLimit: Sendable, Equatable {
    package var failures: Int
    package var window: Double

    package static let standard = LinkFailureLimit(failures: 10, window: 600)

    package init(failures: Int, window: Double) {
        self.failures = failures
        self.window = window
    }

    /// Whole seconds until the device may try a code again, or nil when it may try now.
    /// `failedAt` holds the times of its wrong codes (any order; older ones are ignored).
    package func retryAfter(failedAt: [Double], now: Double) -> Int? {
        let recent = failedAt.filter { $0 > now - window }.sorted()
        guard recent.count >= failures else { return nil }
        // Below the limit again once every failure up to this one has left the window.
        let blocking = recent[recent.count - failures]
        let seconds = (blocking + window - now).rounded(.up)
        return max(1, Int(seconds))
    }
}
