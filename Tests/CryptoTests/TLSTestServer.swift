import COpenSSL
import Foundation

/// A one-shot TLS server on one end of a socket pair, run on its own thread: it completes
/// the handshake (choosing "h2" by ALPN if offered), echoes one read, then sends close_notify.
/// Takes PEM text rather than OpenSSL objects so nothing non-Sendable crosses threads.
enum TLSTestServer {
    /// Returns the client's end of a connected socket pair; the server thread owns the other.
    static func start(certificatePEM: String, keyPEM: String) -> (clientSocket: Int32, done: DispatchSemaphore) {
        // A peer that hangs up mid-handshake must be an error, not SIGPIPE killing the test
        // process. A server using TLSConnection must ignore SIGPIPE the same way.
        signal(SIGPIPE, SIG_IGN)
        var sockets: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0)
        let serverSocket = sockets[1]
        let done = DispatchSemaphore(value: 0)
        Thread {
            serve(socket: serverSocket, certificatePEM: certificatePEM, keyPEM: keyPEM)
            close(serverSocket)
            done.signal()
        }.start()
        return (sockets[0], done)
    }

    private static func serve(socket: Int32, certificatePEM: String, keyPEM: String) {
        let context = SSL_CTX_new(TLS_server_method())
        defer { SSL_CTX_free(context) }
        let certificate = withMemoryBIO(certificatePEM) { PEM_read_bio_X509($0, nil, nil, nil) }
        defer { X509_free(certificate) }
        let key = withMemoryBIO(keyPEM) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        defer { EVP_PKEY_free(key) }
        precondition(SSL_CTX_use_certificate(context, certificate) == 1)
        precondition(SSL_CTX_use_PrivateKey(context, key) == 1)
        SSL_CTX_set_alpn_select_cb(context, selectH2, nil)

        let ssl = SSL_new(context)
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, socket)
        guard SSL_accept(ssl) == 1 else {
            ERR_clear_error()
            return
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = SSL_read(ssl, &buffer, Int32(buffer.count))
        if count > 0 { _ = SSL_write(ssl, buffer, count) }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
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
        let name = UnsafeBufferPointer(start: offered + index + 1, count: length)
        if Array(name) == Array("h2".utf8) {
            // Points into the client's list, which OpenSSL copies before it goes away.
            out?.pointee = UnsafePointer(offered + index + 1)
            outLength?.pointee = UInt8(length)
            return SSL_TLSEXT_ERR_OK
        }
        index += 1 + length
    }
    return SSL_TLSEXT_ERR_NOACK
}
