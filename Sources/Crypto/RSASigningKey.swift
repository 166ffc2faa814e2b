import COpenSSL

/// An RSA private key from PEM (PKCS#8 or PKCS#1): a Google service account's key, which signs
/// the RS256 JWT assertion exchanged for an FCM access token.
///
/// `@unchecked Sendable`: the EVP_PKEY is never mutated after `init`, and each signature gets
/// its own EVP_MD_CTX.
package final class RSASigningKey: @unchecked Sendable {
    /// Why a PEM was refused: `AppFields` tells the tenant which.
    package enum Problem: Error, Sendable, Equatable {
        case unparseable
        case notRSA
    }

    private let key: OpaquePointer
    /// DER SubjectPublicKeyInfo of the public half (for `RSAVerifyingKey`).
    package let publicKeyDER: [UInt8]

    package init(pem: String) throws(Problem) {
        ERR_clear_error()
        let parsed = EVPKey.privateKey(pem: pem)
        ERR_clear_error()
        guard let parsed else { throw .unparseable }
        guard EVP_PKEY_is_a(parsed, "RSA") == 1 else {
            EVP_PKEY_free(parsed)
            throw .notRSA
        }
        guard let der = EVPKey.subjectPublicKeyInfo(of: parsed) else {
            EVP_PKEY_free(parsed)
            ERR_clear_error()
            throw .unparseable
        }
        key = parsed
        publicKeyDER = der
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// RS256 (RFC 7518 §3.3): RSASSA-PKCS1-v1_5 over SHA-256.
    package func signRS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try EVPKey.signSHA256(message, with: key)
    }
}
