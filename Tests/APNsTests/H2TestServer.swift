import COpenSSL
import Foundation
import Synchronization

/// A small HTTP/2 server for end-to-end tests of the APNs client: listens on 127.0.0.1 on a
/// free port, h2c with prior knowledge or TLS (ALPN h2), a thread per connection with
/// blocking I/O. `handler` decides each reply; everything seen is recorded.
final class H2TestServer: Sendable {
    struct Options: Sendable {
        var maxConcurrentStreams: UInt32 = 100
        /// After the first answered request of a connection, advertise this limit (APNs
        /// raises it once a token is accepted).
        var raiseLimitAfterFirstResponse: UInt32?
        /// PEM certificate and key: serve TLS.
        var tls: (certificatePEM: String, keyPEM: String)?
        /// Over TLS, agree to `h2` by ALPN (false: agree to nothing, as an HTTP/1.1 server).
        var agreesToH2 = true
    }

    struct Records {
        var requests: [H2Request] = []
        var connections = 0
        /// Per connection: streams open when each request began, and the limit advertised then.
        var concurrency: [Int: [(open: Int, limit: UInt32)]] = [:]
    }

    let port: UInt16
    private let listener: Int32
    private let options: Options
    private let handler: @Sendable (H2Request) -> H2Reply
    private let records = Mutex(Records())
    private let sockets = Mutex<Set<Int32>>([])

    init(options: Options = Options(), handler: @escaping @Sendable (H2Request) -> H2Reply) {
        // Writes to a socket the client closed must fail, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        self.options = options
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0 && listen(listener, 64) == 0, "bind/listen: \(errno)")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    var url: String { "\(options.tls == nil ? "http" : "https")://\(options.tls == nil ? "127.0.0.1" : "localhost"):\(port)" }

    func snapshot() -> Records { records.withLock { $0 } }

    /// Stops accepting and cuts every connection. Only shutdown(2) here: the threads close
    /// their own descriptors, so a number cannot be reused under a thread still using it.
    func stop() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        sockets.withLock { sockets in
            for descriptor in sockets { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else {
                close(listener)
                return
            }
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let index = records.withLock { records -> Int in
                records.connections += 1
                return records.connections - 1
            }
            sockets.withLock { _ = $0.insert(descriptor) }
            Thread { [self] in
                serve(descriptor, index: index)
                sockets.withLock { _ = $0.remove(descriptor) }
                close(descriptor)
            }.start()
        }
    }

    private func serve(_ descriptor: Int32, index: Int) {
        let transport: H2ServerTransport
        if let tls = options.tls {
            guard let secured = H2ServerTransport.tls(
                descriptor, certificatePEM: tls.certificatePEM, keyPEM: tls.keyPEM, agreesToH2: options.agreesToH2) else { return }
            transport = secured
        } else {
            transport = .plain(descriptor)
        }
        defer { transport.close() }
        let session = H2ServerSession(connection: index, maxConcurrentStreams: options.maxConcurrentStreams) {
            [self] request in
            records.withLock { $0.requests.append(request) }
            return handler(request)
        }
        if let raised = options.raiseLimitAfterFirstResponse {
            var raisedAlready = false
            session.afterResponse = { session in
                if !raisedAlready {
                    raisedAlready = true
                    session.submitMaxConcurrentStreams(raised)
                }
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var recordedSamples = 0
        guard transport.write(session.pendingOutput()) else { return }
        while true {
            let count = transport.read(into: &buffer)
            guard count > 0, session.receive(Array(buffer[0..<count])) else { return }
            let samples = session.concurrencySamples
            records.withLock { records in
                records.concurrency[index, default: []].append(contentsOf: samples[recordedSamples...])
            }
            recordedSamples = samples.count
            if session.dropRequested { return }
            guard transport.write(session.pendingOutput()) else { return }
        }
    }
}

/// The server side of one connection: a plain socket or a TLS session over it, blocking.
enum H2ServerTransport {
    case plain(Int32)
    case secure(OpaquePointer, OpaquePointer)  // SSL_CTX, SSL

    static func tls(_ descriptor: Int32, certificatePEM: String, keyPEM: String, agreesToH2: Bool) -> H2ServerTransport? {
        let context = SSL_CTX_new(TLS_server_method())!
        let certificate = withMemoryBIO(certificatePEM) { PEM_read_bio_X509($0, nil, nil, nil) }
        defer { X509_free(certificate) }
        let key = withMemoryBIO(keyPEM) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        defer { EVP_PKEY_free(key) }
        precondition(SSL_CTX_use_certificate(context, certificate) == 1)
        precondition(SSL_CTX_use_PrivateKey(context, key) == 1)
        if agreesToH2 { SSL_CTX_set_alpn_select_cb(context, selectH2, nil) }
        let ssl = SSL_new(context)!
        SSL_set_fd(ssl, descriptor)
        guard SSL_accept(ssl) == 1 else {
            ERR_clear_error()
            SSL_free(ssl)
            SSL_CTX_free(context)
            return nil
        }
        return .secure(context, ssl)
    }

    func read(into buffer: inout [UInt8]) -> Int {
        switch self {
        case .plain(let descriptor):
            return buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        case .secure(_, let ssl):
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { ERR_clear_error() }
            return Int(count)
        }
    }

    /// False when the peer is gone.
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written: Int = bytes.withUnsafeBytes { raw in
                switch self {
                case .plain(let descriptor):
                    return send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                case .secure(_, let ssl):
                    return Int(SSL_write(ssl, raw.baseAddress! + offset, Int32(raw.count - offset)))
                }
            }
            guard written > 0 else {
                ERR_clear_error()
                return false
            }
            offset += written
        }
        return true
    }

    func close() {
        if case .secure(let context, let ssl) = self {
            SSL_free(ssl)
            SSL_CTX_free(context)
        }
    }

    private static func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer?) -> T) -> T {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer in
            let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}

/// ALPN selection: "h2" if the client offers it, otherwise no protocol.
private func selectH2(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered else { return SSL_TLSEXT_ERR_NOACK }
    var index = 0
    while index < Int(offeredLength) {
        let length = Int(offered[index])
        if Array(UnsafeBufferPointer(start: offered + index + 1, count: length)) == Array("h2".utf8) {
            out?.pointee = UnsafePointer(offered + index + 1)
            outLength?.pointee = UInt8(length)
            return SSL_TLSEXT_ERR_OK
        }
        index += 1 + length
    }
    return SSL_TLSEXT_ERR_NOACK
}
