/// One outbound request: where, what, and how long it may take in all.
package struct HTTPClientRequest: Sendable {
    package var url: String
    package var method: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The whole exchange (resolve, connect, TLS, send, answer) must end within this.
    package var timeout: Duration
    /// Addresses the request's host must connect to, as `CURLOPT_RESOLVE` entries
    /// (`host:port:address[,address]`; an IPv6 address in brackets): libcurl then never resolves
    /// the host itself, so a checked address cannot be swapped by a second DNS answer.
    package var pinnedAddresses: [String]
    /// The most of the answer's body kept; the rest is read and dropped.
    package var maxResponseBytes: Int
    /// Asked about every address libcurl is about to connect to (4 or 16 bytes), just before it
    /// opens the socket: nil lets it connect, a reason refuses it (the request then fails with
    /// `HTTPClientError.refusedAddress`, unless another address of the host is let through).
    /// Whatever resolved the host, this sees the peer itself. Runs on the client's thread: keep it quick.
    package var peerFilter: PeerFilter?

    package var httpVersion: HTTPVersion
    /// Response headers to hand back in `HTTPClientResponse.headers` (names in any case).
    package var responseHeaders: [String]

    package typealias PeerFilter = @Sendable (_ address: [UInt8]) -> String?

    /// Which HTTP the request speaks.
    package enum HTTPVersion: Sendable {
        /// libcurl's choice: HTTP/1.1 on `http://`, HTTP/2 over TLS when the server offers it.
        case negotiated
        /// HTTP/2 only: prior knowledge (h2c) on `http://`, ALPN on `https://`. The request
        /// waits for a connection it can share (multiplex) rather than opening another.
        case http2
    }

    package init(url: String, method: String = "POST", headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                timeout: Duration = .seconds(10), pinnedAddresses: [String] = [], maxResponseBytes: Int = 64 << 10,
                peerFilter: PeerFilter? = nil, httpVersion: HTTPVersion = .negotiated, responseHeaders: [String] = []) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.pinnedAddresses = pinnedAddresses
        self.maxResponseBytes = maxResponseBytes
        self.peerFilter = peerFilter
        self.httpVersion = httpVersion
        self.responseHeaders = responseHeaders
    }
}

/// The answer: its status, (the start of) its body, and the headers the request asked for.
package struct HTTPClientResponse: Sendable, Equatable {
    package var status: Int
    package var body: [UInt8]
    /// Of the request's `responseHeaders`, those the answer had: lower-cased name → value.
    package var headers: [String: String]

    package init(status: Int, body: [UInt8], headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// A header the request asked for, by name in any case.
    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// No answer came: the request timed out, could not connect, or failed on the way.
package enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case timedOut
    /// libcurl's code and message.
    case transport(code: Int, message: String)
    /// The request could not be set up (a bad URL or option).
    case invalidRequest(String)
    /// `peerFilter` refused the address libcurl was to connect to: its reason.
    case refusedAddress(String)
    case shutDown

    package var description: String {
        switch self {
        case .timedOut: "timed out"
        case .transport(let code, let message): "transport error \(code): \(message)"
        case .invalidRequest(let message): "invalid request: \(message)"
        case .refusedAddress(let reason): reason
        case .shutDown: "the HTTP client is shut down"
        }
    }
}
