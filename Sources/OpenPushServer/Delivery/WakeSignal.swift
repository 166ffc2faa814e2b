import Synchronization

/// Wakes a waiting delivery loop early (a NOTIFY arrived); one signal wakes one loop, and the
/// others find the work on their next poll.
final class WakeSignal: Sendable {
    private let pending = Mutex(false)

    func signal() {
        pending.withLock { $0 = true }
    }

    /// Returns at the next signal, or after `timeout`. Checks a flag every few milliseconds:
    /// cheaper and simpler than parking continuations that cancellation cannot reach.
    func wait(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !Task.isCancelled {
            if pending.withLock({ flag in defer { flag = false }; return flag }) { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
