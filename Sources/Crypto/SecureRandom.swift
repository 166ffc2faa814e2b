import COpenSSL

/// Bytes from OpenSSL's CSPRNG.
package enum SecureRandom {
    /// Traps if the CSPRNG fails: handing out predictable bytes would be worse than stopping.
    package static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: bad count \(count)")
        guard count > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&output, Int32(count)) == 1 else {
            fatalError("RAND_bytes failed: \(CryptoError.openSSL("RAND_bytes"))")
        }
        return output
    }
}
