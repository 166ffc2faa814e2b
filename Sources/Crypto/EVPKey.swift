import COpenSSL

/// What the signing keys share over an `EVP_PKEY`: reading one from PEM, its public half as
/// DER, and a signature over SHA-256 in the key's own scheme.
enum EVPKey {
    /// A new P-256 key pair (the caller frees it with `EVP_PKEY_free`).
    static func generateP256() throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, FetchedAlgorithms.p256Parameters, nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.openSSL("P-256 key generation")
        }
        return key
    }

    /// The private key in `pem` (PKCS#8, or the type's traditional form), or nil when it does
    /// not parse. An encrypted one does not: no passphrase is asked for.
    static func privateKey(pem: String) -> OpaquePointer? {
        let bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { return nil }
        // The BIO borrows `bytes` without copying; it is freed before `bytes` goes out of scope.
        let parsed = withExtendedLifetime(bytes) {
            PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
        }
        BIO_free(bio)
        return parsed
    }

    /// The DER SubjectPublicKeyInfo of `key`'s public half.
    static func subjectPublicKeyInfo(of key: OpaquePointer) -> [UInt8]? {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        return written == length ? output : nil
    }

    /// `message` signed over SHA-256 with `key` (RSA: PKCS#1 v1.5; EC: a DER ECDSA signature).
    /// Each call has its own EVP_MD_CTX, so one key signs on many threads at once.
    static func signSHA256(_ message: [UInt8], with key: OpaquePointer) throws(CryptoError) -> [UInt8] {
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
        // The first call reports the maximum size; an ECDSA signature is often a byte or two shorter.
        signature.removeSubrange(length...)
        return signature
    }
}

/// Passphrase callback that supplies none, so an encrypted PEM fails to parse instead of
/// OpenSSL's default callback prompting on the server's terminal.
private func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ rwflag: Int32, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    -1
}
