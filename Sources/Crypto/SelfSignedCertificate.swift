import COpenSSL

/// A fresh P-256 key and a self-signed certificate for it, as PEM: what a local test server
/// (the APNs simulator) presents, and what its clients add to their trust store.
package struct SelfSignedCertificate: Sendable {
    package var certificatePEM: String
    package var privateKeyPEM: String

    /// - Parameters:
    ///   - commonName: the subject (and issuer) CN.
    ///   - dnsNames, ipAddresses: subjectAltName entries; hostname checks use these, and an IP
    ///     literal such as `127.0.0.1` matches only an IP entry.
    ///   - validFor: seconds from now; the start is backdated a minute for clock skew.
    package static func generate(
        commonName: String = "localhost",
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1", "::1"],
        validFor seconds: Int = 365 * 24 * 3600
    ) throws(CryptoError) -> SelfSignedCertificate {
        ERR_clear_error()
        let key = try EVPKey.generateP256()
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw CryptoError.openSSL("X509_new") }
        defer { X509_free(certificate) }

        guard X509_set_version(certificate, 2) == 1 else { throw CryptoError.openSSL("X509_set_version") }
        // A random positive serial: a client that cached an older certificate of ours must not
        // see two certificates with one issuer and serial.
        let serialBytes = SecureRandom.bytes(16)
        let serial = serialBytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 16, nil) }
        defer { BN_free(serial) }
        guard let serial, BN_set_bit(serial, 126) == 1, BN_clear_bit(serial, 127) == 1,
              BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate)) != nil else {
            throw CryptoError.openSSL("serial number")
        }
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -60) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), seconds) != nil else {
            throw CryptoError.openSSL("X509_gmtime_adj")
        }
        guard X509_set_pubkey(certificate, key) == 1 else { throw CryptoError.openSSL("X509_set_pubkey") }
        let name = X509_get_subject_name(certificate)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1 else {
            throw CryptoError.openSSL("subject name")
        }
        let alternativeNames = dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
        if !alternativeNames.isEmpty {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let extensionValue = X509V3_EXT_conf_nid(
                nil, &context, NID_subject_alt_name, alternativeNames.joined(separator: ",")) else {
                throw CryptoError.openSSL("subjectAltName")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(certificate, extensionValue, -1) == 1 else { throw CryptoError.openSSL("X509_add_ext") }
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw CryptoError.openSSL("X509_sign") }

        return SelfSignedCertificate(
            certificatePEM: try PEMText.written { PEM_write_bio_X509($0, certificate) },
            privateKeyPEM: try PEMText.written { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) })
    }
}
