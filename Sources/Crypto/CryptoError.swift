import COpenSSL

/// A libcrypto/libssl failure, with OpenSSL's own reason text.
package struct CryptoError: Error, Sendable, CustomStringConvertible {
    package var message: String

    package init(message: String) {
        self.message = message
    }

    package var description: String { message }

    /// Builds an error from `context` plus every entry on this thread's OpenSSL error queue,
    /// and empties the queue so a stale entry cannot leak into the next failure.
    static func openSSL(_ context: String) -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(message: reasons.isEmpty ? context : "\(context): \(reasons.joined(separator: "; "))")
    }
}
