import Crypto

#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to APNs, TLS or cleartext, non-blocking once open. Opening it (DNS,
/// connect, handshake) blocks the calling thread, which is the connection's own thread.
///
/// Not thread-safe: the connection thread owns it.
final class APNSSocket {
    enum IOResult: Equatable {
        case transferred(Int)
        /// Nothing now; poll (for writability too when `wantsWrite`) and call again.
        case wouldBlock(wantsWrite: Bool)
        /// The peer closed the connection.
        case closed
    }

    let descriptor: Int32
    private let tls: TLSConnection?
    private var isClosed = false

    private init(descriptor: Int32, tls: TLSConnection?) {
        self.descriptor = descriptor
        self.tls = tls
    }

    deinit {
        close()
    }

    /// Resolves, connects (trying each address), and for TLS runs the handshake and insists
    /// on ALPN `h2`. Each phase is bounded by `timeout` seconds.
    static func open(
        _ endpoint: APNSEndpoint, tlsContext: TLSClientContext?, timeout: Double
    ) throws(APNSTransportError) -> APNSSocket {
        let descriptor = try connectTCP(host: endpoint.host, port: endpoint.port, timeout: timeout)
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard endpoint.usesTLS else { return APNSSocket(descriptor: descriptor, tls: nil) }
        guard let tlsContext else {
            Glibc.close(descriptor)
            throw APNSTransportError(.connectFailed, "no TLS context for \(endpoint.authority)")
        }
        // The handshake runs blocking, bounded by socket timeouts; the loop then goes non-blocking.
        setBlocking(descriptor, true)
        setTimeouts(descriptor, timeout)
        let tls: TLSConnection
        do throws(CryptoError) {
            tls = try TLSConnection(context: tlsContext, socket: descriptor, hostname: endpoint.host)
            try tls.handshake()
        } catch {
            Glibc.close(descriptor)
            throw APNSTransportError(.connectFailed, "TLS with \(endpoint.authority): \(error.message)")
        }
        guard tls.negotiatedALPN == "h2" else {
            tls.shutdown()
            Glibc.close(descriptor)
            throw APNSTransportError(.connectFailed, "\(endpoint.authority) did not agree to HTTP/2 (ALPN h2)")
        }
        setTimeouts(descriptor, 0)
        setBlocking(descriptor, false)
        return APNSSocket(descriptor: descriptor, tls: tls)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(APNSTransportError) -> IOResult {
        if let tls {
            do {
                switch try tls.readNonBlocking(into: buffer) {
                case .transferred(let count): return .transferred(count)
                case .wantRead: return .wouldBlock(wantsWrite: false)
                case .wantWrite: return .wouldBlock(wantsWrite: true)
                case .closed: return .closed
                }
            } catch {
                throw APNSTransportError(.connectionLost, error.message)
            }
        }
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock(wantsWrite: false) }
        throw APNSTransportError(.connectionLost, "recv: \(String(cString: strerror(errno)))")
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(APNSTransportError) -> IOResult {
        if let tls {
            do {
                switch try tls.writeNonBlocking(bytes) {
                case .transferred(let count): return .transferred(count)
                case .wantRead: return .wouldBlock(wantsWrite: false)
                case .wantWrite: return .wouldBlock(wantsWrite: true)
                case .closed: return .closed
                }
            } catch {
                throw APNSTransportError(.connectionLost, error.message)
            }
        }
        // MSG_NOSIGNAL: a peer that hung up is an error here, not SIGPIPE.
        let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return .transferred(count) }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock(wantsWrite: true) }
        throw APNSTransportError(.connectionLost, "send: \(String(cString: strerror(errno)))")
    }

    /// Sends close_notify (best effort) and closes the descriptor; idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        tls?.shutdown()
        Glibc.close(descriptor)
    }

    // MARK: Opening

    private static func connectTCP(host: String, port: UInt16, timeout: Double) throws(APNSTransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw APNSTransportError(.connectFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard descriptor >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            setBlocking(descriptor, false)
            if let failure = connectWithTimeout(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout) {
                lastError = failure
                Glibc.close(descriptor)
                continue
            }
            return descriptor
        }
        throw APNSTransportError(.connectFailed, "cannot connect to \(host):\(port): \(lastError)")
    }

    /// nil on success, else the reason.
    private static func connectWithTimeout(
        _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, _ timeout: Double
    ) -> String? {
        if connect(descriptor, address, length) == 0 { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&entry, 1, Int32(clamping: Int(timeout * 1000)))
        if ready == 0 { return "timed out after \(timeout) s" }
        if ready < 0 { return String(cString: strerror(errno)) }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size)
        return error == 0 ? nil : String(cString: strerror(error))
    }

    static func setBlocking(_ descriptor: Int32, _ blocking: Bool) {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK)
    }

    /// Send and receive timeouts for the blocking handshake; 0 removes them.
    private static func setTimeouts(_ descriptor: Int32, _ seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }
}
