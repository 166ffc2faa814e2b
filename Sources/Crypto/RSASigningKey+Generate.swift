import COpenSSL

extension RSASigningKey {
    /// A new RSA private key as PKCS#8 PEM: the shape of a service account's `private_key`. For
    /// tests and the demo service account of `openpush dev`; production keys come from Google.
    package static func generatePEM(bits: Int32 = 2048) throws(CryptoError) -> String {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.openSSL("RSA key generation")
        }
        defer { EVP_PKEY_free(key) }
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { throw CryptoError.openSSL("PEM write") }
        var data: UnsafeMutablePointer<CChar>?
        // BIO_get_mem_data is a macro over BIO_ctrl.
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
