import COpenSSL

/// A client certificate and its private key for mutual TLS (APNs certificate authentication),
/// read once from PEM: the certificate first, then its key (unencrypted PKCS#8, or the key
/// type's traditional form). `TLSClientContext` presents it on every connection.
///
/// `@unchecked Sendable`: the X509 and EVP_PKEY are never changed after `init`; OpenSSL lets
/// any thread take references to them (`SSL_CTX_use_certificate` does).
package final class TLSClientIdentity: @unchecked Sendable {
    let certificate: OpaquePointer
    let privateKey: OpaquePointer
    /// The certificate as DER: what tells two identities apart.
    package let certificateDER: [UInt8]

    /// - Parameter pem: the certificate's PEM followed by its private key's PEM.
    package init(pem: String) throws(CryptoError) {
        ERR_clear_error()
        let bytes = Array(pem.utf8)
        let certificate = bytes.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let certificate else { throw CryptoError.openSSL("no certificate in the PEM") }
        // The key is read from the whole text: PEM reading skips blocks of another kind.
        guard let privateKey = EVPKey.privateKey(pem: pem) else {
            X509_free(certificate)
            throw CryptoError.openSSL("no unencrypted private key in the PEM")
        }
        self.certificate = certificate
        self.privateKey = privateKey
        let length = i2d_X509(certificate, nil)
        var der = [UInt8](repeating: 0, count: Int(max(length, 0)))
        if length > 0 {
            _ = der.withUnsafeMutableBufferPointer { buffer in
                var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                return i2d_X509(certificate, &cursor)
            }
        }
        certificateDER = der
        guard length > 0 else { throw CryptoError.openSSL("i2d_X509") }
        guard X509_check_private_key(certificate, privateKey) == 1 else {
            throw CryptoError.openSSL("the private key does not match the certificate")
        }
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }
}
