import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// A TLS server session over an accepted socket. The handshake may run on a blocking socket;
/// reads and writes then also work on a non-blocking one, reporting `wantRead`/`wantWrite`
/// instead of blocking. The caller keeps owning the socket and closes it after this object.
///
/// The process must ignore SIGPIPE (OpenSSL writes with write(2)).
///
/// Not thread-safe: one owner reads and writes.
package final class TLSServerConnection {
    /// What a read or write did.
    package enum IOResult: Equatable, Sendable {
        /// Bytes read or written (always > 0).
        case transferred(Int)
        /// Nothing now: wait until the socket is readable (or writable), then call again.
        case wantRead
        case wantWrite
        /// The peer closed the TLS session (close_notify or end of stream).
        case closed
    }

    private let context: TLSServerContext
    private let ssl: OpaquePointer

    package init(context: TLSServerContext, socket: Int32) throws(CryptoError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw CryptoError.openSSL("SSL_new") }
        self.context = context
        self.ssl = ssl
        guard SSL_set_fd(ssl, socket) == 1 else { throw CryptoError.openSSL("SSL_set_fd") }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Runs the server side of the handshake; on a blocking socket it returns when done.
    package func handshake() throws(CryptoError) {
        let result = SSL_accept(ssl)
        guard result == 1 else { throw failure(result, "TLS handshake") }
    }

    /// Reads up to `buffer.count` bytes into the front of `buffer`.
    package func read(into buffer: inout [UInt8]) throws(CryptoError) -> IOResult {
        guard !buffer.isEmpty else { return .transferred(0) }
        let capacity = Int32(clamping: buffer.count)
        let result = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, capacity) }
        if result > 0 { return .transferred(Int(result)) }
        return try outcome(result, "SSL_read")
    }

    /// Writes a prefix of `bytes`. After `wantWrite`, call again with the same bytes at the
    /// front (more may follow): partial writes and a moving buffer are enabled on the context.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) -> IOResult {
        guard !bytes.isEmpty else { return .transferred(0) }
        let result = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        if result > 0 { return .transferred(Int(result)) }
        return try outcome(result, "SSL_write")
    }

    /// Decrypted bytes OpenSSL holds that a socket poll would not announce.
    package var hasBufferedInput: Bool { SSL_pending(ssl) > 0 }

    /// The protocol chosen by ALPN, e.g. `"h2"`; `nil` if none was agreed.
    package var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The client's certificate as DER when it presented one that verified against the
    /// context's client CA; nil otherwise.
    package var verifiedPeerCertificateDER: [UInt8]? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard SSL_get_verify_result(ssl) == X509_V_OK else { return nil }
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        _ = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        return der
    }

    /// Sends close_notify without waiting for the peer's; does not close the socket.
    package func shutdown() {
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    private func outcome(_ result: Int32, _ context: String) throws(CryptoError) -> IOResult {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            // End of stream without close_notify, or a reset: the session is over either way.
            return .closed
        default: throw failure(result, context)
        }
    }

    private func failure(_ result: Int32, _ context: String) -> CryptoError {
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_SYSCALL, ERR_peek_error() == 0 {
            let reason = errno == 0 ? "connection closed unexpectedly" : String(cString: strerror(errno))
            return CryptoError(message: "\(context): \(reason)")
        }
        return CryptoError.openSSL("\(context) (SSL error \(code))")
    }
}
