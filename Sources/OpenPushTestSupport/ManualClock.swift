import Synchronization

/// A wall clock that moves only when a test says so (unix seconds).
public final class ManualClock: Sendable {
    private let current: Mutex<Double>

    public init(_ start: Double = 1_756_598_400) {
        current = Mutex(start)
    }

    public func now() -> Double { current.withLock { $0 } }

    public func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }

    /// For `TestApp.make(now:)`.
    public var source: @Sendable () -> Double { { self.now() } }
}
