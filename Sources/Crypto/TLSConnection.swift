import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// A TLS client session over an already connected, blocking socket. It sends SNI and checks
/// the certificate against `hostname`. The caller keeps owning the socket and closes it
/// after this object is gone.
///
/// OpenSSL writes with write(2), so a peer that has hung up raises SIGPIPE: the process must
/// ignore SIGPIPE (`signal(SIGPIPE, SIG_IGN)` at startup) for that to surface as an error.
///
/// Not thread-safe: one owner reads and writes.
package final class TLSConnection {
    private let context: TLSClientContext
    let ssl: OpaquePointer

    package init(context: TLSClientContext, socket: Int32, hostname: String) throws(CryptoError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw CryptoError.openSSL("SSL_new") }
        self.context = context
        self.ssl = ssl
        guard SSL_set_fd(ssl, socket) == 1 else { throw CryptoError.openSSL("SSL_set_fd") }
        // SNI is for DNS names only (RFC 6066 §3); SSL_set1_host checks IP literals as IP SANs.
        if !Self.isIPAddress(hostname), openpush_SSL_set_tlsext_host_name(ssl, hostname) != 1 {
            throw CryptoError.openSSL("SSL_set_tlsext_host_name")
        }
        guard SSL_set1_host(ssl, hostname) == 1 else { throw CryptoError.openSSL("SSL_set1_host") }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Runs the handshake, including certificate and hostname verification.
    package func handshake() throws(CryptoError) {
        let result = SSL_connect(ssl)
        guard result == 1 else {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                ERR_clear_error()
                throw CryptoError(message: "TLS handshake: certificate verification failed: \(reason)")
            }
            throw failure(result, "TLS handshake")
        }
    }

    /// Reads up to `buffer.count` bytes into the front of `buffer`; 0 means the peer closed
    /// the TLS session cleanly.
    package func read(into buffer: inout [UInt8]) throws(CryptoError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        let capacity = Int32(clamping: buffer.count)
        let result = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, capacity) }
        if result > 0 { return Int(result) }
        if SSL_get_error(ssl, result) == SSL_ERROR_ZERO_RETURN { return 0 }
        throw failure(result, "SSL_read")
    }

    /// Writes all of `bytes` (a blocking socket lets SSL_write finish the whole record set).
    package func write(_ bytes: [UInt8]) throws(CryptoError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = Int32(clamping: bytes.count - offset)
            let result = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, chunk) }
            guard result > 0 else { throw failure(result, "SSL_write") }
            offset += Int(result)
        }
    }

    /// The protocol the server chose by ALPN, e.g. `"h2"`; `nil` if none was agreed.
    package var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Sends close_notify. Does not wait for the peer's, and does not close the socket.
    package func shutdown() {
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    func failure(_ result: Int32, _ context: String) -> CryptoError {
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_SYSCALL, ERR_peek_error() == 0 {
            let reason = errno == 0 ? "connection closed unexpectedly" : String(cString: strerror(errno))
            return CryptoError(message: "\(context): \(reason)")
        }
        return CryptoError.openSSL("\(context) (SSL error \(code))")
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }
}
