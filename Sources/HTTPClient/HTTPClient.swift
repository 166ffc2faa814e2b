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

    /// What the driving thread shares with callers: the multi handle and the hand-over queue.
    private final class Shared: Sendable {
        let multi: CurlMulti
        let queue = Mutex(Queue())

        init(multi: CurlMulti) {
            self.multi = multi
        }
    }

    private let shared: Shared
    private var multi: CurlMulti { shared.multi }
    private let userAgent: String

    /// Starts the driving thread; call `shutdown()` to end it.
    /// - Parameter maxHostConnections: connections open at once to one host (0: no limit). With
    ///   HTTP/2 requests multiplex on them; past the limit, requests wait for a free stream.
    package init(userAgent: String = "OpenPush", maxHostConnections: Int = 0) throws {
        let multi = try CurlMulti()
        if maxHostConnections > 0 {
            try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        }
        shared = Shared(multi: multi)
        self.userAgent = userAgent
        let thread = Thread { [shared] in HTTPClient.drive(shared) }
        thread.name = "openpush.http-client"
        thread.start()
    }

    /// Sends `request` and returns its answer (any status); throws only when no answer came.
    package func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let transfer = try Transfer(request, userAgent: userAgent)
        let result: Result<HTTPClientResponse, HTTPClientError> = await withCheckedContinuation { continuation in
            transfer.continuation = continuation
            let accepted = shared.queue.withLock { queue -> Bool in
                guard !queue.stopping else { return false }
                queue.added.append(transfer)
                return true
            }
            if accepted {
                multi.wakeup()
            } else {
                transfer.continuation = nil
                continuation.resume(returning: .failure(.shutDown))
            }
        }
        return try result.get()
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

    private static func drive(_ shared: Shared) {
        let multi = shared.multi
        var running: [UnsafeMutableRawPointer: Transfer] = [:]
        var cleartextH2 = CleartextHTTP2Origins()
        func add(_ transfer: Transfer) {
            let code = curl_multi_add_handle(multi.handle, transfer.easy.handle)
            if code == CURLM_OK {
                running[transfer.easy.handle] = transfer
            } else {
                let error = HTTPClientError.transport(code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
                transfer.complete(.failure(error))
            }
        }
        while true {
            let (added, stopping) = shared.queue.withLock { queue in
                defer { queue.added = [] }
                return (queue.added, queue.stopping)
            }
            added.forEach(add)
            if stopping, running.isEmpty { break }
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
                    transfer.finish(code)
                }
            }
            again.forEach(add)
            if running.isEmpty {
                // Nothing in flight: sleep until `send` or `shutdown` wakes the multi handle.
                let idle = shared.queue.withLock { $0.added.isEmpty && !$0.stopping }
                if idle { _ = curl_multi_poll(multi.handle, nil, 0, 30_000, nil) }
            } else {
                _ = curl_multi_poll(multi.handle, nil, 0, 1000, nil)
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

/// One request in flight: its easy handle, the answer read so far, and who awaits it.
final class Transfer: @unchecked Sendable {
    let easy: CurlEasy
    var continuation: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>?
    private var body: [UInt8] = []
    private let maxResponseBytes: Int
    private let peerFilter: HTTPClientRequest.PeerFilter?
    private let responseHeaders: [String]
    /// Set for HTTP/2 on `http://` where libcurl needs `CleartextHTTP2Origins`: the origin.
    let cleartextH2Origin: String?
    /// This transfer opens a new h2c connection (prior knowledge); the others only reuse one.
    private(set) var opensConnection = false
    /// It needed a new connection but may only reuse one: it was refused the socket.
    var wantedConnection = false
    /// Why `peerFilter` refused the last address it was asked about (the driving thread only).
    private var refusal: String?

    init(_ request: HTTPClientRequest, userAgent: String) throws(HTTPClientError) {
        easy = try CurlEasy()
        maxResponseBytes = request.maxResponseBytes
        peerFilter = request.peerFilter
        responseHeaders = request.responseHeaders
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Never a proxy from the environment: it would resolve the host itself, past the pin.
        try easy.set(CURLOPT_PROXY, "")
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_USERAGENT, userAgent)
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(easy.errorBuffer))
        let milliseconds = max(1, Int(request.timeout.components.seconds * 1000
                                      + request.timeout.components.attoseconds / 1_000_000_000_000_000))
        try easy.set(CURLOPT_TIMEOUT_MS, milliseconds)
        try easy.set(CURLOPT_RESOLVE, list: request.pinnedAddresses)
        // No `Expect: 100-continue` round trip before a body.
        try easy.set(CURLOPT_HTTPHEADER, list: request.headers.map { "\($0.name): \($0.value)" } + ["Expect:"])
        switch request.method {
        case "GET" where request.body.isEmpty:
            try easy.set(CURLOPT_HTTPGET, 1)
        case "POST":
            try easy.setBody(request.body)
        default:
            try easy.setBody(request.body)
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        let cleartext = request.url.lowercased().hasPrefix("http://")
        cleartextH2Origin = request.httpVersion == .http2 && cleartext && CleartextHTTP2Origins.needed
            ? CleartextHTTP2Origins.origin(of: request.url) : nil
        if request.httpVersion == .http2 {
            // Through `CleartextHTTP2Origins`, h2c transfers ask for HTTP/2 (which reuses an h2c
            // connection as it is) and only the one opening a connection for prior knowledge.
            try easy.set(CURLOPT_HTTP_VERSION, !cleartext ? CURL_HTTP_VERSION_2TLS
                : cleartextH2Origin != nil ? CURL_HTTP_VERSION_2_0 : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
            try easy.set(CURLOPT_PIPEWAIT, 1)
        }
        try easy.setWriteFunction(httpClientWrite)
        try easy.set(CURLOPT_WRITEDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        if peerFilter != nil || cleartextH2Origin != nil {
            try easy.setOpenSocketFunction(httpClientOpenSocket)
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// A socket for `address`, or `CURL_SOCKET_BAD` when the filter refuses it.
    func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if cleartextH2Origin != nil, !opensConnection {
            wantedConnection = true
            return openpush_curl_socket_bad()
        }
        if let peerFilter {
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = bytes.withUnsafeMutableBufferPointer { openpush_curl_sockaddr_bytes(address, $0.baseAddress!) }
            let reason = count == 0 ? "refused a connection to an address that is neither IPv4 nor IPv6"
                                    : peerFilter(Array(bytes.prefix(count)))
            if let reason {
                refusal = reason
                return openpush_curl_socket_bad()
            }
        }
        return openpush_curl_open_socket(address)
    }

    func receive(_ bytes: UnsafeRawBufferPointer) {
        let room = maxResponseBytes - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }

    func finish(_ code: CURLcode) {
        complete(result(code))
    }

    func result(_ code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        // libcurl reports a refused socket as a failed connect: the refusal says why.
        if code != CURLE_OK, let refusal { return .failure(.refusedAddress(refusal)) }
        switch code {
        case CURLE_OK:
            return .success(HTTPClientResponse(status: easy.responseCode, body: body, headers: easy.headers(responseHeaders)))
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut)
        default: return .failure(.transport(code: Int(code.rawValue), message: easy.message(for: code)))
        }
    }

    /// Makes this transfer the one that opens a new h2c connection, with prior knowledge.
    func openConnection() throws(HTTPClientError) {
        wantedConnection = false
        opensConnection = true
        body = []
        try easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        try easy.set(CURLOPT_FRESH_CONNECT, 1)
    }

    func complete(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(returning: result)
    }
}

/// libcurl's open-socket callback: the user pointer is the transfer, as for the write callback.
/// Only connections to a peer (not sockets libcurl accepts) go through the filter.
private func httpClientOpenSocket(_ user: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
                                  _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let address else { return openpush_curl_socket_bad() }
    guard let user, purpose == CURLSOCKTYPE_IPCXN else { return openpush_curl_open_socket(address) }
    return Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().openSocket(address)
}

/// libcurl's write callback: the user pointer is the transfer (kept alive by the driving
/// thread's table while it is in the multi handle).
private func httpClientWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                             _ user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let user, let data else { return length }
    Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().receive(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
