import COpenSSL

/// An RSA public key for checking RS256 signatures (the local FCM simulator verifies the
/// JWT assertions of Google service accounts with it; tests check OpenPush's own).
///
/// `@unchecked Sendable`: the EVP_PKEY is never mutated after `init`, and each verification
/// gets its own EVP_MD_CTX.
package final class RSAVerifyingKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// - Parameter pem: a `PUBLIC KEY` PEM, or a private key PEM (as in a service account's
    ///   `private_key`), of which only the public half is used.
    package init(pem: String) throws(CryptoError) {
        ERR_clear_error()
        let bytes = Array(pem.utf8)
        let isPrivate = pem.contains("PRIVATE KEY-----")
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw CryptoError.openSSL("BIO_new_mem_buf")
        }
        // The BIO borrows `bytes` without copying; it is freed before `bytes` goes out of scope.
        let parsed = withExtendedLifetime(bytes) {
            isPrivate ? PEM_read_bio_PrivateKey(bio, nil, nil, nil) : PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        BIO_free(bio)
        guard let parsed else { throw CryptoError.openSSL(isPrivate ? "not a PEM private key" : "not a PEM public key") }
        key = try Self.requireRSA(parsed)
    }

    /// - Parameter publicKeyDER: a DER SubjectPublicKeyInfo, e.g. `RSASigningKey.publicKeyDER`.
    package init(publicKeyDER: [UInt8]) throws(CryptoError) {
        ERR_clear_error()
        let parsed = publicKeyDER.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("not a DER public key") }
        key = try Self.requireRSA(parsed)
    }

    private static func requireRSA(_ parsed: OpaquePointer) throws(CryptoError) -> OpaquePointer {
        guard EVP_PKEY_is_a(parsed, "RSA") == 1 else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "not an RSA key")
        }
        return parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Checks an RS256 signature (RFC 7518 §3.3: RSASSA-PKCS1-v1_5 over SHA-256) of `message`.
    package func isValidRS256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // PKCS#1 v1.5 is the default padding of an RSA EVP_PKEY.
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
