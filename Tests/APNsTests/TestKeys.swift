import COpenSSL

/// Generates keys and verifies signatures with libcrypto directly, so the tests need no
/// `openssl` binary and check the JWT against a path `Crypto` does not share.
/// (Copied from `Tests/CryptoTests`, trimmed to what these tests use.)
enum TestKeys {
    /// A fresh EC key on the named curve (`"P-256"`, `"P-384"`), as PKCS#8 PEM.
    static func ecPrivateKeyPEM(curve: String) -> String {
        generate(algorithm: "EC") { EVP_PKEY_CTX_set_group_name($0, curve) }
    }

    /// Verifies a raw `r‖s` ES256 signature against a SubjectPublicKeyInfo.
    static func verifyES256(rawSignature: [UInt8], message: [UInt8], publicKeyDER: [UInt8]) throws -> Bool {
        let der = try ECDSASignatureDER.fromRaw(rawSignature)
        let key = publicKeyDER.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { return false }
        defer { EVP_PKEY_free(key) }
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = EVP_DigestVerify(context, der, der.count, message, message.count)
        ERR_clear_error()
        return result == 1
    }

    /// A self-signed P-256 certificate for `commonName`, valid for an hour, as PEM
    /// (certificate, private key). No SAN: OpenSSL's host check falls back to the CN.
    static func selfSignedCertificate(commonName: String) -> (certificatePEM: String, keyPEM: String) {
        let keyPEM = ecPrivateKeyPEM(curve: "P-256")
        let key = readPrivateKey(keyPEM)
        defer { EVP_PKEY_free(key) }
        let certificate = X509_new()
        defer { X509_free(certificate) }
        precondition(X509_set_version(certificate, 2) == 1)
        precondition(ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1) == 1)
        X509_gmtime_adj(X509_getm_notBefore(certificate), -60)
        X509_gmtime_adj(X509_getm_notAfter(certificate), 3600)
        precondition(X509_set_pubkey(certificate, key) == 1)
        let name = X509_get_subject_name(certificate)
        precondition(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1)
        precondition(X509_set_issuer_name(certificate, name) == 1)
        precondition(X509_sign(certificate, key, EVP_sha256()) > 0)
        return (writePEM { PEM_write_bio_X509($0, certificate) }, keyPEM)
    }

    private static func generate(algorithm: String, configure: (OpaquePointer?) -> Int32) -> String {
        let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil)
        defer { EVP_PKEY_CTX_free(context) }
        precondition(EVP_PKEY_keygen_init(context) == 1)
        precondition(configure(context) == 1)
        var key: OpaquePointer?
        precondition(EVP_PKEY_generate(context, &key) == 1)
        defer { EVP_PKEY_free(key) }
        return writePEM { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    private static func readPrivateKey(_ pem: String) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        return bytes.withUnsafeBytes { buffer in
            let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count))
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)!
        }
    }

    private static func writePEM(_ write: (OpaquePointer?) -> Int32) -> String {
        let bio = BIO_new(BIO_s_mem())
        defer { BIO_free(bio) }
        precondition(write(bio) == 1)
        var data: UnsafeMutablePointer<CChar>?
        // BIO_get_mem_data is a macro over BIO_ctrl.
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Raw `r‖s` → DER, written independently of the module's converter (plain ASN.1 rules).
enum ECDSASignatureDER {
    struct Malformed: Error {}

    static func fromRaw(_ raw: [UInt8]) throws -> [UInt8] {
        guard raw.count == 64 else { throw Malformed() }
        let body = integer(Array(raw[0..<32])) + integer(Array(raw[32..<64]))
        return [0x30, UInt8(body.count)] + body
    }

    private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02, UInt8(bytes.count)] + bytes
    }
}
