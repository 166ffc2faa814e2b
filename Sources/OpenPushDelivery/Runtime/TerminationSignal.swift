import Dispatch
import Foundation

/// SIGINT and SIGTERM, caught from the first line of `main` so that a signal that arrives while
/// the server is still starting is remembered rather than lost. Lives outside `main.swift` on
/// purpose: a handler formed in top-level code would be main-actor isolated and trap when
/// Dispatch calls it.
package enum TerminationSignal {
    private static let state = SignalState()

    /// Starts listening. Call once, first thing in `main`.
    package static func install() {
        state.install()
    }

    /// The first termination signal received, waiting for one if none has arrived yet.
    package static func wait() async -> Int32 {
        await withCheckedContinuation { continuation in state.onSignal { continuation.resume(returning: $0) } }
    }
}

private final class SignalState: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var waiters: [(Int32) -> Void] = []
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "openpush.signals")

    func install() {
        lock.withLock {
            guard sources.isEmpty else { return }
            for signalNumber in [SIGINT, SIGTERM] {
                // Ignore first, then watch: libdispatch installs its own handler when it registers
                // the source (asynchronously, after `resume`), and a later SIG_IGN would undo it.
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler { [weak self] in self?.deliver(signalNumber) }
                source.resume()
                sources.append(source)
            }
        }
    }

    func onSignal(_ waiter: @escaping (Int32) -> Void) {
        let already = lock.withLock { () -> Int32? in
            if let received { return received }
            waiters.append(waiter)
            return nil
        }
        if let already { waiter(already) }
    }

    private func deliver(_ signalNumber: Int32) {
        let pending = lock.withLock { () -> [(Int32) -> Void] in
            if received == nil { received = signalNumber }
            defer { waiters = [] }
            return waiters
        }
        pending.forEach { $0(signalNumber) }
    }
}
