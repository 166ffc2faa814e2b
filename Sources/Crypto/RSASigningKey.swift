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
        let bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw .unparseable
        }
        // The BIO borrows `bytes` without copying; it is freed before `bytes` goes out of scope.
        let parsed = withExtendedLifetime(bytes) {
            PEM_read_bio_PrivateKey(bio, nil, refuseRSAPassphrase, nil)
        }
        BIO_free(bio)
        ERR_clear_error()
        guard let parsed else { throw .unparseable }
        guard EVP_PKEY_is_a(parsed, "RSA") == 1 else {
            EVP_PKEY_free(parsed)
            throw .notRSA
        }
        let length = i2d_PUBKEY(parsed, nil)
        var der = [UInt8](repeating: 0, count: max(Int(length), 0))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(parsed, &cursor)
        }
        guard length > 0, written == length else {
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
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSignInit")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSign (size)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSign")
        }
        signature.removeSubrange(length...)
        return signature
    }
}

/// Supplies no passphrase, so an encrypted PEM fails to parse instead of prompting.
private func refuseRSAPassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ rwflag: Int32, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
