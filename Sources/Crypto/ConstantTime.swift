import COpenSSL

/// Compares two byte strings in time that depends only on their length, for secrets such as
/// API keys and MACs. A length mismatch returns `false` at once: lengths are not secret here.
package func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { a in
        b.withUnsafeBytes { b in
            CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
        }
    }
}
