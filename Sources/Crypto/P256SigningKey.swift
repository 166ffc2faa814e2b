import COpenSSL

/// An APNs token-auth key: the PEM text of a `.p8` file (PKCS#8 EC P-256 private key).
///
/// `@unchecked Sendable`: the EVP_PKEY is never mutated after `init`, and OpenSSL 3 allows
/// concurrent signing with one key because each signature gets its own EVP_MD_CTX.
package final class P256SigningKey: @unchecked Sendable {
    private let key: OpaquePointer
    package let publicKeyDER: [UInt8]

    package init(pem: String) throws(CryptoError) {
        ERR_clear_error()
        let parsed = EVPKey.privateKey(pem: pem)
        guard let parsed else { throw CryptoError.openSSL("not a PEM private key") }

        guard EVP_PKEY_is_a(parsed, "EC") == 1 else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "not an EC private key")
        }
        let curve = EVPKey.curveName(of: parsed)
        guard curve == "prime256v1" else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "EC key is on curve \(curve ?? "unknown"), not P-256 (prime256v1)")
        }
        guard let der = EVPKey.subjectPublicKeyInfo(of: parsed) else {
            EVP_PKEY_free(parsed)
            throw CryptoError.openSSL("i2d_PUBKEY")
        }
        key = parsed
        publicKeyDER = der
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// ES256 (RFC 7518 §3.4): ECDSA P-256 over SHA-256, returned as the raw 64-byte `r‖s`.
    package func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try EVPKey.signSHA256(message, with: key)
        return try ECDSASignature.raw(fromDER: der, coordinateSize: 32)
    }
}
