package import Crypto

#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection, TLS or cleartext, non-blocking from the first syscall: the event
/// loop starts the connect, calls `finishConnect()` once the socket is writable, then
/// (TLS) `startTLS`; the handshake runs inside the first reads and writes, and the first byte
/// through it checks ALPN `h2` (the clients on this runtime speak HTTP/2 only). Nothing here ever waits.
///
/// Not thread-safe: the event loop's thread owns it.
package final class NonBlockingSocket {
    package enum IOResult: Equatable {
        case transferred(Int)
        /// Nothing now; wait for readability (or writability when `wantsWrite`) and call again.
        case wouldBlock(wantsWrite: Bool)
        /// The peer closed the connection.
        case closed
    }

    package let descriptor: Int32
    private var tls: TLSConnection?
    private var authority = ""
    /// True once TLS is through its handshake (at once for cleartext).
    package private(set) var isHandshaken = true
    private var isClosed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Starts connecting to `address`. `connected` is true when it is done already (loopback
    /// may be); otherwise wait until the socket is writable and call `finishConnect()`.
    package static func connect(to address: AddressResolver.Address) throws(SocketError) -> (socket: NonBlockingSocket, connected: Bool) {
        let descriptor = Glibc.socket(
            address.family, address.socketType | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            address.socketProtocol)
        guard descriptor >= 0 else { throw SocketError(.connectFailed, "socket: \(String(cString: strerror(errno)))") }
        let socket = NonBlockingSocket(descriptor: descriptor)
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.bytes.withUnsafeBytes { bytes in
            Glibc.connect(descriptor, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
        if result == 0 { return (socket, true) }
        guard errno == EINPROGRESS else {
            throw SocketError(.connectFailed, String(cString: strerror(errno)))
        }
        return (socket, false)
    }

    /// After the socket became writable: whether the connect worked.
    package func finishConnect() throws(SocketError) {
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size)
        if error != 0 { throw SocketError(.connectFailed, String(cString: strerror(error))) }
    }

    /// Sends the ClientHello (with SNI); the rest of the handshake happens in `read`/`write`.
    package func startTLS(context: TLSClientContext, hostname: String, authority: String) throws(SocketError) {
        let tls: TLSConnection
        do throws(CryptoError) {
            tls = try TLSConnection(context: context, socket: descriptor, hostname: hostname)
        } catch {
            throw SocketError(.connectFailed, "TLS with \(authority): \(error.message)")
        }
        // On a non-blocking socket SSL_connect stops at "want read" (reported as an error
        // here): it has put OpenSSL in client mode and sent the ClientHello, which is all
        // that is wanted. A real failure shows again at the first read or write.
        try? tls.handshake()
        self.tls = tls
        self.authority = authority
        isHandshaken = false
    }

    /// One non-blocking TLS read or write, its outcome as the socket's: TLS may want to read
    /// when asked to write and the other way round.
    private func throughTLS(_ operation: () throws(CryptoError) -> TLSConnection.NonBlockingResult) throws(SocketError) -> IOResult {
        let outcome: TLSConnection.NonBlockingResult
        do {
            outcome = try operation()
        } catch {
            throw handshakeFailure(error) ?? SocketError(.connectionLost, error.message)
        }
        switch outcome {
        case .transferred(let count):
            try checkHandshake()
            return .transferred(count)
        case .wantRead: return .wouldBlock(wantsWrite: false)
        case .wantWrite: return .wouldBlock(wantsWrite: true)
        case .closed: return .closed
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> IOResult {
        if let tls { return try throughTLS { () throws(CryptoError) in try tls.readNonBlocking(into: buffer) } }
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock(wantsWrite: false) }
        throw SocketError(.connectionLost, "recv: \(String(cString: strerror(errno)))")
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> IOResult {
        if let tls { return try throughTLS { () throws(CryptoError) in try tls.writeNonBlocking(bytes) } }
        // MSG_NOSIGNAL: a peer that hung up is an error here, not SIGPIPE.
        let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return .transferred(count) }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock(wantsWrite: true) }
        throw SocketError(.connectionLost, "send: \(String(cString: strerror(errno)))")
    }

    /// Sends close_notify (best effort, once the handshake is done) and closes; idempotent.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        if isHandshaken { tls?.shutdown() }
        Glibc.close(descriptor)
    }

    // MARK: Handshake

    /// The first bytes through TLS mean the handshake is done: insist on HTTP/2.
    private func checkHandshake() throws(SocketError) {
        guard !isHandshaken, let tls else { return }
        isHandshaken = true
        guard tls.negotiatedALPN == "h2" else {
            throw SocketError(.connectFailed, "\(authority) did not agree to HTTP/2 (ALPN h2)")
        }
    }

    /// A failure during the handshake is a connect failure; asking `handshake()` once more
    /// names a certificate that failed verification.
    private func handshakeFailure(_ error: CryptoError) -> SocketError? {
        guard !isHandshaken, let tls else { return nil }
        var message = error.message
        do throws(CryptoError) {
            try tls.handshake()
        } catch let detail where detail.message.contains("verification failed") {
            message = detail.message
        } catch {}
        return SocketError(.connectFailed, "TLS with \(authority): \(message)")
    }
}
