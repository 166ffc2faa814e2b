import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs getaddrinfo, which blocks, on a thread of its own so the event loop never waits for
/// DNS. Started with the first name to resolve (numeric hosts never need it); one lookup at
/// a time, and a host is looked up about once a minute, so one thread is plenty.
package final class ResolverThread: Sendable {
    package typealias Completion = @Sendable (_ host: String, _ port: UInt16, Result<[AddressResolver.Address], SocketError>) -> Void

    private struct State {
        var waiting: [(host: String, port: UInt16)] = []
        var isRunning = false
        var isStopped = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let completion: Completion
    /// The thread's name, for debuggers and `top -H`.
    private let name: String

    package init(name: String, completion: @escaping Completion) {
        self.name = name
        self.completion = completion
    }

    package func lookUp(host: String, port: UInt16) {
        let start = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.waiting.append((host, port))
            defer { state.isRunning = true }
            return !state.isRunning
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
        available.signal()
    }

    /// Ends the thread after the lookup under way, if any; its result is dropped.
    package func stop() {
        state.withLock { $0.isStopped = true }
        available.signal()
    }

    private func run() {
        while true {
            available.wait()
            let next = state.withLock { state -> (host: String, port: UInt16)?? in
                guard !state.isStopped else { return .none }
                return state.waiting.isEmpty ? .some(nil) : state.waiting.removeFirst()
            }
            guard let next else { return }
            guard let (host, port) = next else { continue }
            let result = Result { () throws(SocketError) in try AddressResolver.resolve(host: host, port: port) }
            guard !state.withLock({ $0.isStopped }) else { return }
            completion(host, port, result)
        }
    }
}
