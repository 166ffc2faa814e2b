import COpenSSL

/// The public half of an RSA key, for checking RS256 signatures (tests and the FCM simulator's
/// token endpoint verify assertions with it).
///
/// `@unchecked Sendable`: the EVP_PKEY is never mutated after `init`.
package final class RSAVerifyingKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// - Parameter publicKeyDER: a DER SubjectPublicKeyInfo, e.g. `RSASigningKey.publicKeyDER`.
    package init(publicKeyDER: [UInt8]) throws(CryptoError) {
        ERR_clear_error()
        let parsed = publicKeyDER.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("not a DER public key") }
        guard EVP_PKEY_is_a(parsed, "RSA") == 1 else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "not an RSA public key")
        }
        key = parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Checks an RS256 (RSASSA-PKCS1-v1_5, SHA-256) signature over `message`.
    package func isValidRS256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
