import COpenSSL

/// The SHA-256 implementation, fetched from the provider once: passing `EVP_sha256()` makes
/// OpenSSL 3 look it up again on every digest, which costs more than hashing a short string.
nonisolated(unsafe) private let fetchedSHA256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

/// SHA-256 through libcrypto's EVP interface.
package enum SHA256 {
    package static func hash<D: Collection>(_ data: D) -> [UInt8] where D.Element == UInt8 {
        if let contiguous = data.withContiguousStorageIfAvailable({ digest(of: $0) }) {
            return contiguous
        }
        return Array(data).withUnsafeBufferPointer { digest(of: $0) }
    }

    /// The 32-byte digest of `bytes`, written to `output` (at least 32 bytes): no allocation,
    /// for a hash per push.
    package static func hash(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= 32, "a SHA-256 digest is 32 bytes")
        var length: UInt32 = 0
        guard EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                         fetchedSHA256 ?? EVP_sha256(), nil) == 1 else {
            fatalError("EVP_Digest(SHA-256) failed: \(CryptoError.openSSL("SHA-256"))")
        }
    }

    private static func digest(of buffer: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // EVP_Digest only fails on allocation failure or a missing provider: nothing to recover.
        guard EVP_Digest(buffer.baseAddress, buffer.count, &output, &length, fetchedSHA256 ?? EVP_sha256(), nil) == 1 else {
            fatalError("EVP_Digest(SHA-256) failed: \(CryptoError.openSSL("SHA-256"))")
        }
        return Array(output.prefix(Int(length)))
    }
}
