import COpenSSL

/// HMAC-SHA256 through libcrypto's one-shot `HMAC` (webhook signatures).
package enum HMACSHA256 {
    package static func authenticationCode<K: Collection, M: Collection>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        let key = Array(key)
        let message = Array(message)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                // A zero-length key still needs a non-null pointer.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                    HMAC(EVP_sha256(), key.baseAddress ?? UnsafeRawPointer(empty.baseAddress!), Int32(key.count),
                         message.baseAddress ?? UnsafePointer(empty.baseAddress!), message.count, &output, &length)
                }
            }
        }
        // HMAC only fails on allocation failure or a missing provider: nothing to recover.
        guard result != nil else { fatalError("HMAC(SHA-256) failed: \(CryptoError.openSSL("HMAC-SHA256"))") }
        return Array(output.prefix(Int(length)))
    }
}
