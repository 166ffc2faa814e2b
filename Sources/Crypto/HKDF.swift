import COpenSSL

/// HKDF with SHA-256 (RFC 5869), extract and expand in one call, through OpenSSL.
package enum HKDF {
    package static func sha256(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw CryptoError.openSSL("HKDF context") }
        defer { EVP_PKEY_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: length)
        var written = length
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
              EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1,
              EVP_PKEY_CTX_set1_hkdf_key(context, key, Int32(key.count)) == 1,
              EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1,
              EVP_PKEY_derive(context, &output, &written) == 1, written == length else {
            throw CryptoError.openSSL("HKDF")
        }
        return output
    }
}
