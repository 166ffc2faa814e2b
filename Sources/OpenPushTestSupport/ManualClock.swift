import Synchronization

/// A wall clock that moves only when a test says so (unix seconds).
package final class ManualClock: Sendable {
    private let current: Mutex<Double>

    package init(_ start: Double = 1_756_598_400) {
        current = Mutex(start)
    }

    package func now() -> Double { current.withLock { $0 } }

    package func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }

    /// For `TestApp.make(now:)`.
    package var source: @Sendable () -> Double { { self.now() } }
}
