import COpenSSL

/// An RSA key made and used straight through libcrypto, independent of the `Crypto` module:
/// the PEM texts a Google service account holds, and RS256 signatures to check.
final class FCMTestRSAKey: @unchecked Sendable {
    private let key: OpaquePointer
    let privateKeyPEM: String
    let publicKeyPEM: String

    init(bits: Int32 = 2048) {
        let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil)!
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        precondition(EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) == 1)
        precondition(EVP_PKEY_generate(context, &generated) == 1)
        key = generated!
        privateKeyPEM = Self.pem { PEM_write_bio_PrivateKey($0, generated, nil, nil, 0, nil, nil) }
        publicKeyPEM = Self.pem { PEM_write_bio_PUBKEY($0, generated) }
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256.
    func signRS256(_ message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1)
        var length = 0
        precondition(EVP_DigestSign(context, nil, &length, message, message.count) == 1)
        var signature = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(context, &signature, &length, message, message.count) == 1)
        return Array(signature.prefix(length))
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) -> String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(write(bio) == 1)
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let count = BIO_read(bio, &bytes, Int32(bytes.count))
        return String(decoding: bytes.prefix(Int(max(count, 0))), as: UTF8.self)
    }
}
