import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM. Lives outside `main.swift` on purpose: a handler formed in
/// top-level code would be main-actor isolated and trap when Dispatch calls it.
public enum TerminationSignal {
    public static func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let once = ResumeOnce(continuation)
            let queue = DispatchQueue(label: "openpush.signals")
            var sources: [any DispatchSourceSignal] = []
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler { once.resume(signalNumber) }
                source.resume()
                sources.append(source)
            }
            once.retain(sources)
        }
    }
}

/// Resumes a continuation at most once and keeps the signal sources alive until then.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }

    func retain(_ sources: [any DispatchSourceSignal]) {
        lock.withLock { self.sources = sources }
    }

    func resume(_ signalNumber: Int32) {
        let pending = lock.withLock { () -> CheckedContinuation<Int32, Never>? in
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: signalNumber)
    }
}
