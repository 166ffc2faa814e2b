import CCurl
import Foundation
import Synchronization

/// Outbound HTTP/1.1 and HTTP/2 over libcurl's multi interface: one thread drives every
/// transfer (`curl_multi_poll`/`curl_multi_perform`), so many requests run at once without a
/// thread each, and each `send` awaits a continuation the thread completes.
package final class HTTPClient: Sendable {
    private struct Queue {
        var added: [Transfer] = []
        var stopping = false
        var stopped: [CheckedContinuation<Void, Never>] = []
        var finished = false
    }

    /// What the driving thread shares with callers: the multi handle, the hand-over queue, and
    /// easy handles whose transfers are done, for the next ones to reuse (a new handle costs
    /// allocations and options a reset one does not).
    private final class Shared: Sendable {
        let multi: CurlMulti
        let queue = Mutex(Queue())
        let idle = Mutex<[CurlEasy]>([])
        /// Transfers waiting in the driving thread's `HTTP1OriginQueue` (tests).
        let waiting = Atomic(0)

        init(multi: CurlMulti) {
            self.multi = multi
        }
    }

    private let shared: Shared
    /// Idle easy handles kept at most.
    static let maxIdleHandles = 256
    private var multi: CurlMulti { shared.multi }
    let userAgent: String

    /// Starts the driving thread; call `shutdown()` to end it.
    /// - Parameter maxHostConnections: connections open at once to one host (0: no limit). With
    ///   HTTP/2 requests multiplex on them; past the limit, requests wait for a free stream.
    ///   HTTP/1.1 requests (`http://`, not `.http2`) past the limit wait in this client's queue
    ///   for one of their origin's to end.
    package init(userAgent: String = "OpenPush", maxHostConnections: Int = 0) throws {
        let multi = try CurlMulti()
        if maxHostConnections > 0 {
            try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        }
        shared = Shared(multi: multi)
        self.userAgent = userAgent
        let thread = Thread { [shared] in HTTPClient.drive(shared, maxHostConnections: maxHostConnections) }
        thread.name = "openpush.http-client"
        thread.start()
    }

    /// Sends `request` and returns its answer (any status); throws only when no answer came.
    package func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let transfer = try Transfer(request, userAgent: userAgent, reusing: idleHandle())
        let result: Result<HTTPClientResponse, HTTPClientError> = await withCheckedContinuation { continuation in
            transfer.waiter = .single(continuation)
            if !hand([transfer]) {
                transfer.waiter = nil
                continuation.resume(returning: .failure(.shutDown))
            }
        }
        return try result.get()
    }

    /// Hands transfers to the driving thread (one lock and one wake-up however many); false,
    /// taking none, once the client is shutting down.
    func hand(_ transfers: [Transfer]) -> Bool {
        let accepted = shared.queue.withLock { queue -> Bool in
            guard !queue.stopping else { return false }
            queue.added.append(contentsOf: transfers)
            return true
        }
        if accepted { multi.wakeup() }
        return accepted
    }

    /// Requests waiting for a connection of their origin in this client's queue now (tests).
    package var queuedRequests: Int { shared.waiting.load(ordering: .relaxed) }

    /// Easy handles idle in the pool now (tests).
    package var idleHandles: Int { shared.idle.withLock { $0.count } }

    /// An easy handle of a finished transfer, if one is idle.
    func idleHandle() -> CurlEasy? {
        shared.idle.withLock { $0.popLast() }
    }

    /// Takes no new request; those in flight finish (each within its timeout), then the thread ends.
    package func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.queue.withLock { queue -> Bool in
                queue.stopping = true
                if queue.finished { return true }
                queue.stopped.append(continuation)
                return false
            }
            if done { continuation.resume() } else { multi.wakeup() }
        }
    }

    private static func drive(_ shared: Shared, maxHostConnections: Int) {
        let multi = shared.multi
        var running: [UnsafeMutableRawPointer: Transfer] = [:]
        var cleartextH2 = CleartextHTTP2Origins()
        var http1 = HTTP1OriginQueue(limit: maxHostConnections)
        /// The answer is read off the handle first; the handle is idle before its caller
        /// resumes, for the caller's next request.
        func complete(_ transfer: Transfer, _ result: Result<HTTPClientResponse, HTTPClientError>) {
            let easy = transfer.easy
            shared.idle.withLock { idle in
                if idle.count < HTTPClient.maxIdleHandles { idle.append(easy) }
            }
            transfer.complete(result)
        }
        func add(_ transfer: Transfer) -> Bool {
            let code = curl_multi_add_handle(multi.handle, transfer.easy.handle)
            if code == CURLM_OK {
                running[transfer.easy.handle] = transfer
                return true
            }
            let error = HTTPClientError.transport(code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
            transfer.complete(.failure(error))
            return false
        }
        /// A transfer holding one of `origin`'s slots ended or never started: the slot goes to
        /// the first waiting transfer that still has time and can be added.
        func pass(_ origin: String) {
            while let next = http1.end(origin) {
                do throws(HTTPClientError) {
                    guard try next.startTimeoutLeft(at: .now) else {
                        complete(next, .failure(.timedOut))
                        continue
                    }
                } catch {
                    next.complete(.failure(error))
                    continue
                }
                if add(next) { return }
            }
        }
        func start(_ transfer: Transfer) {
            guard http1.admit(transfer) else { return }
            if !add(transfer), let origin = transfer.http1Origin { pass(origin) }
        }
        while true {
            let (added, stopping) = shared.queue.withLock { queue in
                defer { queue.added = [] }
                return (queue.added, queue.stopping)
            }
            added.forEach(start)
            // Queued transfers still run after `shutdown()`: the loop ends once none waits.
            if stopping, running.isEmpty, http1.isEmpty { break }
            var active: Int32 = 0
            _ = curl_multi_perform(multi.handle, &active)
            var left: Int32 = 0
            var again: [Transfer] = []
            while let message = curl_multi_info_read(multi.handle, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let transfer = running.removeValue(forKey: easy) else { continue }
                let code = openpush_curl_message_result(message)
                curl_multi_remove_handle(multi.handle, easy)
                if transfer.cleartextH2Origin != nil {
                    again += cleartextH2.done(transfer, code)
                } else {
                    complete(transfer, transfer.result(code))
                    if let origin = transfer.http1Origin { pass(origin) }
                }
            }
            again.forEach { _ = add($0) }
            var pollMilliseconds: Int32 = 1000
            if !http1.isEmpty {
                let now = ContinuousClock.now
                for transfer in http1.expired(at: now) { complete(transfer, .failure(.timedOut)) }
                // Wake for the next waiting transfer's deadline, should no slot free before it.
                if let earliest = http1.earliestDeadline {
                    pollMilliseconds = Int32(min(1000, Transfer.milliseconds(earliest - now)))
                }
            }
            shared.waiting.store(http1.waitingCount, ordering: .relaxed)
            if running.isEmpty, http1.isEmpty {
                // Nothing in flight: sleep until `send` or `shutdown` wakes the multi handle.
                let idle = shared.queue.withLock { $0.added.isEmpty && !$0.stopping }
                if idle { _ = curl_multi_poll(multi.handle, nil, 0, 30_000, nil) }
            } else {
                _ = curl_multi_poll(multi.handle, nil, 0, pollMilliseconds, nil)
            }
        }
        let waiters = shared.queue.withLock { queue in
            queue.finished = true
            defer { queue.stopped = [] }
            return queue.stopped
        }
        waiters.forEach { $0.resume() }
    }
}
