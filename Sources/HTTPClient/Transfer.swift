import CCurl

/// One request in flight: its easy handle, the answer read so far, and who awaits it.
final class Transfer: @unchecked Sendable {
    /// Who gets the answer: one caller's continuation, or a place in a batch's results.
    enum Waiter {
        case single(CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>)
        case batch(HTTPBatchResults, index: Int)
    }

    let easy: CurlEasy
    var waiter: Waiter?
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
    /// The request's URL, for `HTTP1OriginQueue` to find its origin.
    let url: String
    /// When the request's timeout ends, counted from when the caller handed it over: a transfer
    /// that waits in `HTTP1OriginQueue` runs only for what is left.
    let deadline: ContinuousClock.Instant
    /// HTTP/1.1 only (`http://`, not `.http2`): one request per connection at a time.
    let cannotMultiplex: Bool
    /// Set by `HTTP1OriginQueue` for a transfer it counts: the origin whose slot it holds.
    var http1Origin: String?

    /// `headers`: the request's header list already made (a batch shares one), else made here
    /// from `request.headers`; `body`: sent instead of `request.body`; `reusing`: an idle handle
    /// of the client's pool, reset here, else a new one.
    init(_ request: HTTPClientRequest, userAgent: String, headers: CurlStringList? = nil,
         body: [UInt8]? = nil, reusing idle: CurlEasy? = nil) throws(HTTPClientError) {
        if let idle {
            idle.reset()
            easy = idle
        } else {
            easy = try CurlEasy()
        }
        url = request.url
        deadline = .now + request.timeout
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
        try easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout))
        try easy.set(CURLOPT_RESOLVE, list: request.pinnedAddresses)
        let headerList: CurlStringList
        if let headers { headerList = headers } else { headerList = try CurlStringList(headerListOf: request) }
        try easy.set(CURLOPT_HTTPHEADER, list: headerList)
        let body = body ?? request.body
        switch request.method {
        case "GET" where body.isEmpty:
            try easy.set(CURLOPT_HTTPGET, 1)
        case "POST":
            try easy.setBody(body)
        default:
            try easy.setBody(body)
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        let cleartext = request.url.lowercased().hasPrefix("http://")
        cannotMultiplex = cleartext && request.httpVersion != .http2
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

    /// Whole milliseconds of `duration`, at least 1 (libcurl reads 0 as no timeout).
    static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000))
    }

    /// A transfer that waited in `HTTP1OriginQueue`, about to be added: its timeout becomes what
    /// is left of it. False, setting nothing, if nothing is left.
    func startTimeoutLeft(at now: ContinuousClock.Instant) throws(HTTPClientError) -> Bool {
        let left = deadline - now
        guard left > .zero else { return false }
        try easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(left))
        return true
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
        let waiter = self.waiter
        self.waiter = nil
        switch waiter {
        case .single(let continuation): continuation.resume(returning: result)
        case .batch(let results, let index): results.record(result, at: index)
        case nil: break
        }
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
