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
        let bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw CryptoError.openSSL("BIO_new_mem_buf")
        }
        // The BIO borrows `bytes` without copying; it is freed before `bytes` goes out of scope.
        let parsed = withExtendedLifetime(bytes) {
            PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
        }
        BIO_free(bio)
        guard let parsed else { throw CryptoError.openSSL("not a PEM private key") }

        guard EVP_PKEY_is_a(parsed, "EC") == 1 else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "not an EC private key")
        }
        let curve = Self.curveName(of: parsed)
        guard curve == "prime256v1" else {
            EVP_PKEY_free(parsed)
            throw CryptoError(message: "EC key is on curve \(curve ?? "unknown"), not P-256 (prime256v1)")
        }
        guard let der = Self.subjectPublicKeyInfo(of: parsed) else {
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
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSignInit")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSign (size)")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSign")
        }
        // The first call reports the maximum size; the real DER is often a byte or two shorter.
        der.removeSubrange(length...)
        return try ECDSASignature.raw(fromDER: der, coordinateSize: 32)
    }

    private static func curveName(of key: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &buffer, buffer.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func subjectPublicKeyInfo(of key: OpaquePointer) -> [UInt8]? {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        return written == length ? output : nil
    }
}

/// Passphrase callback that supplies none, so an encrypted PEM fails to parse instead of
/// OpenSSL's default callback prompting on the server's terminal.
private func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ rwflag: Int32, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
