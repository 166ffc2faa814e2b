import COpenSSL

/// A P-256 key pair for key agreement and ES256 signing: a Web Push app's VAPID key (signs the
/// `Authorization` JWT) and a browser's own key in the local push-service simulator. (Each
/// encrypted push's ephemeral key is a `P256EphemeralAgreement`.)
///
/// `@unchecked Sendable`: the EVP_PKEY is never mutated after `init`, and OpenSSL 3 allows
/// concurrent signing and derivation with one key (each call has its own context).
package final class P256KeyPair: @unchecked Sendable {
    private let key: OpaquePointer
    /// The 65-byte uncompressed public point (0x04 ‖ X ‖ Y).
    package let publicKey: [UInt8]

    /// `checked`: a key read from outside is held to P-256 and checked (scalar in range, point
    /// its own); one OpenSSL just generated needs neither.
    private init(taking key: OpaquePointer, checked: Bool = true) throws(CryptoError) {
        guard !checked || EVPKey.isP256(key) else {
            EVP_PKEY_free(key)
            throw CryptoError(message: "not a P-256 (prime256v1) EC key")
        }
        guard !checked || EVPKey.isConsistentPrivateKey(key), let point = EVPKey.uncompressedPublicKey(of: key) else {
            EVP_PKEY_free(key)
            throw CryptoError(message: "not a valid P-256 private key")
        }
        self.key = key
        publicKey = point
    }

    deinit {
        EVP_PKEY_free(key)
    }

    package static func generate() throws(CryptoError) -> P256KeyPair {
        try P256KeyPair(taking: EVPKey.generateP256(), checked: false)
    }

    /// A PKCS#8 (`PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`) PEM; P-256 only, unencrypted.
    package convenience init(pem: String) throws(CryptoError) {
        ERR_clear_error()
        guard let parsed = EVPKey.privateKey(pem: pem) else { throw CryptoError.openSSL("not a PEM private key") }
        guard EVP_PKEY_is_a(parsed, "EC") == 1 else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "not an EC private key")
        }
        try self.init(taking: parsed)
    }

    /// The 32-byte private scalar (big-endian), from which the public point is derived.
    package convenience init(scalar: [UInt8]) throws(CryptoError) {
        guard scalar.count == 32 else { throw CryptoError(message: "a P-256 private key is 32 bytes, got \(scalar.count)") }
        ERR_clear_error()
        // SEC1 ECPrivateKey without its optional public key: OpenSSL computes the point.
        let der: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
            + [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PrivateKey(EVP_PKEY_EC, nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("not a valid P-256 private key") }
        try self.init(taking: parsed)
    }

    /// The private key as PKCS#8 PEM.
    package func privateKeyPEM() throws(CryptoError) -> String {
        try PEMText.written { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    /// ECDH: the 32-byte shared secret (the X coordinate) with a peer's uncompressed point.
    package func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        guard let peer = EVPKey.p256PublicKey(uncompressed: peerPublicKey) else {
            throw CryptoError(message: "the peer's key is not an uncompressed P-256 point")
        }
        defer { EVP_PKEY_free(peer) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw CryptoError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        // The peer's point was checked on the curve when it was read (`p256PublicKey`), and P-256's
        // cofactor is 1: OpenSSL's own peer check would only repeat that, at the cost of a scalar
        // multiplication per push.
        var length = 0
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peer, 0) == 1,
              EVP_PKEY_derive(context, nil, &length) == 1 else {
            throw CryptoError.openSSL("ECDH")
        }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else { throw CryptoError.openSSL("ECDH") }
        return Array(secret.prefix(length))
    }

    /// ES256 (RFC 7518 §3.4) over `message`: the raw 64-byte `r‖s`.
    package func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try ECDSASignature.raw(fromDER: EVPKey.signSHA256(message, with: key), coordinateSize: 32)
    }

    /// Whether `bytes` is a 65-byte uncompressed point on P-256.
    package static func isValidPublicKey(_ bytes: [UInt8]) -> Bool {
        guard let parsed = EVPKey.p256PublicKey(uncompressed: bytes) else {
            ERR_clear_error()
            return false
        }
        EVP_PKEY_free(parsed)
        return true
    }

    /// Checks a raw `r‖s` ES256 signature over `message` against an uncompressed public point.
    package static func isValidES256Signature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let verifier = P256VerifyingKey(uncompressedPoint: publicKey) else { return false }
        return verifier.isValidES256Signature(signature, for: message)
    }
}
