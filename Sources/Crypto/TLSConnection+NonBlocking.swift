import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing over a non-blocking socket, for an event loop that polls the socket
/// itself. The handshake is done first with `handshake()` (blocking); the owner then sets
/// O_NONBLOCK. When a call answers `wantRead` or `wantWrite`, poll for that and call again;
/// a write must then be retried with at least the bytes it was offered (the context allows
/// the buffer to move or grow).
extension TLSConnection {
    package enum NonBlockingResult: Sendable, Hashable {
        case transferred(Int)
        case wantRead
        case wantWrite
        /// The peer sent close_notify.
        case closed
    }

    package func readNonBlocking(into buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) -> NonBlockingResult {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .transferred(0) }
        // SSL_get_error reads the thread's error queue, so it must start empty.
        ERR_clear_error()
        let result = SSL_read(ssl, base, Int32(clamping: buffer.count))
        if result > 0 { return .transferred(Int(result)) }
        return try nonBlockingOutcome(result, "SSL_read")
    }

    package func writeNonBlocking(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) -> NonBlockingResult {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .transferred(0) }
        ERR_clear_error()
        let result = SSL_write(ssl, base, Int32(clamping: bytes.count))
        if result > 0 { return .transferred(Int(result)) }
        return try nonBlockingOutcome(result, "SSL_write")
    }

    private func nonBlockingOutcome(_ result: Int32, _ context: String) throws(CryptoError) -> NonBlockingResult {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: throw failure(result, context)
        }
    }
}
