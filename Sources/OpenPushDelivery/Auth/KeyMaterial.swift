import Crypto

/// A secret shown once: the value goes to the caller, only the digest is stored.
package struct IssuedKey: Sendable {
    package var value: String
    package var digest: [UInt8]
}

/// Keys are 256 random bits, hex-encoded behind a prefix that says what they open
/// (`rest_…`, `sdk_…`, `dev_…`). Stored as SHA-256 digests and compared in constant time.
package enum KeyMaterial {
    package static func issue(prefix: String) -> IssuedKey {
        let value = prefix + "_" + SecureRandom.bytes(32).hexString
        return IssuedKey(value: value, digest: digest(value))
    }

    package static func digest(_ key: String) -> [UInt8] {
        SHA256.hash(Array(key.utf8))
    }

    /// True when the presented key's digest equals the stored digest. Comparing digests keeps
    /// the comparison constant-time and independent of the key's length.
    package static func matches(_ presented: String, digest stored: [UInt8]) -> Bool {
        constantTimeEquals(digest(presented), stored)
    }

    /// Random bytes for ids (`Identifier.make`).
    package static func identifierEntropy() -> [UInt8] { SecureRandom.bytes(10) }
}
