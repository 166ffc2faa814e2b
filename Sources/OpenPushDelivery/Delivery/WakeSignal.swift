import Synchronization

/// Wakes waiting delivery loops early: a NOTIFY arrived (all of them), or work is flowing and
/// another loop could help (one). A signal with nobody waiting is kept for the next wait, so
/// none is lost between a loop's last claim and its wait. Waiters park on continuations: an
/// idle loop costs nothing until its timeout. Closed (a stop), it wakes every waiter and every
/// later wait returns at once.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        /// After `close()`: no wait parks again.
        var closed = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose timeout fired before they parked.
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Wakes one waiting loop, or the next one to wait.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let id = state.waiters.keys.min() else {
                state.pending = true
                return nil
            }
            return state.waiters.removeValue(forKey: id)
        }
        waiter?.resume()
    }

    /// Wakes every waiting loop, and the next one to wait.
    func signalAll() {
        wakeEveryWaiter { $0.pending = true }
    }

    /// Wakes every waiting loop and every loop that waits from now on. A stop calls it: one
    /// pending signal would wake only the first of the loops that were between their last look
    /// at the stop flag and their wait, and the others slept their whole idle timeout (30 s).
    func close() {
        wakeEveryWaiter { $0.closed = true }
    }

    /// Resumes every parked waiter after `mark` has set what the waits to come will find.
    private func wakeEveryWaiter(_ mark: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.waiters = [:] }
            mark(&state)
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns at the next signal, or after `timeout`; at once when closed.
    func wait(timeout: Duration) async {
        let id = state.withLock { state -> Int? in
            if state.closed { return nil }
            if state.pending {
                state.pending = false
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.resume(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                // A signal or the timeout may have come before we parked: then do not park.
                if state.expired.remove(id) != nil || state.closed { return true }
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiters[id] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        await timer.value
        // A timeout that fired after a signal woke us leaves its mark: forget it.
        state.withLock { _ = $0.expired.remove(id) }
    }

    private func resume(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil
            }
            return waiter
        }
        waiter?.resume()
    }
}
