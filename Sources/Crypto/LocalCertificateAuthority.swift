import COpenSSL

/// A certificate authority made on the spot, and APNs-shaped client certificates it signs: what
/// `openpush dev` gives its APNs simulator to trust and its certificate demo app to present,
/// standing in for Apple's CA and an Apple push certificate (the bundle id as the subject's UID,
/// the topics in Apple's extension 1.2.840.113635.100.6.3.6). Never for talking to Apple.
package struct LocalCertificateAuthority: Sendable {
    /// The CA's certificate, as PEM: what the simulator verifies client certificates against.
    package var certificatePEM: String
    /// The CA's private key, as PEM (PKCS#8).
    package var privateKeyPEM: String

    /// A client certificate and its key, as PEM.
    package struct Issued: Sendable {
        package var certificatePEM: String
        package var privateKeyPEM: String
    }

    /// A fresh P-256 CA, valid for `seconds` from now.
    package static func generate(commonName: String = "OpenPush local APNs CA",
                                 validFor seconds: Int = 10 * 365 * 24 * 3600) throws(CryptoError) -> LocalCertificateAuthority {
        ERR_clear_error()
        let key = try EVPKey.generateP256()
        defer { EVP_PKEY_free(key) }
        let certificate = try CertificateBuilding.newCertificate(key: key, validFor: seconds)
        defer { X509_free(certificate) }
        let name = X509_get_subject_name(certificate)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1 else { throw CryptoError.openSSL("CA name") }
        try CertificateBuilding.addExtension(NID_basic_constraints, "critical,CA:TRUE", to: certificate, issuer: certificate)
        try CertificateBuilding.addExtension(NID_key_usage, "critical,keyCertSign,cRLSign", to: certificate, issuer: certificate)
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw CryptoError.openSSL("X509_sign") }
        return LocalCertificateAuthority(
            certificatePEM: try PEMText.written { PEM_write_bio_X509($0, certificate) },
            privateKeyPEM: try PEMText.written { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) })
    }

    /// A client certificate for `bundleID` (its UID), listing `topics` in Apple's extension,
    /// signed by this CA.
    package func issue(bundleID: String, topics: [String], validFor seconds: Int = 365 * 24 * 3600) throws(CryptoError) -> Issued {
        ERR_clear_error()
        guard let caKey = EVPKey.privateKey(pem: privateKeyPEM) else { throw CryptoError.openSSL("the CA's key") }
        defer { EVP_PKEY_free(caKey) }
        let caCertificate = Array(certificatePEM.utf8).withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let caCertificate else { throw CryptoError.openSSL("the CA's certificate") }
        defer { X509_free(caCertificate) }

        let key = try EVPKey.generateP256()
        defer { EVP_PKEY_free(key) }
        let certificate = try CertificateBuilding.newCertificate(key: key, validFor: seconds)
        defer { X509_free(certificate) }
        let name = X509_get_subject_name(certificate)
        guard X509_NAME_add_entry_by_txt(name, "UID", MBSTRING_UTF8, bundleID, -1, -1, 0) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, "Apple Push Services: \(bundleID)", -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, X509_get_subject_name(caCertificate)) == 1
        else { throw CryptoError.openSSL("client certificate name") }
        try CertificateBuilding.addExtension(NID_basic_constraints, "CA:FALSE", to: certificate, issuer: caCertificate)
        try CertificateBuilding.addExtension(NID_ext_key_usage, "clientAuth", to: certificate, issuer: caCertificate)
        try Self.addTopics(topics, bundleID: bundleID, to: certificate)
        guard X509_sign(certificate, caKey, EVP_sha256()) > 0 else { throw CryptoError.openSSL("X509_sign") }
        return Issued(certificatePEM: try PEMText.written { PEM_write_bio_X509($0, certificate) },
                      privateKeyPEM: try PEMText.written { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) })
    }

    /// Apple's topics extension: `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String kind }, … }`.
    private static func addTopics(_ topics: [String], bundleID: String, to certificate: OpaquePointer) throws(CryptoError) {
        var content: [UInt8] = []
        for topic in topics {
            let kind = topic == bundleID ? "app" : String(topic.split(separator: ".").last ?? "app")
            content += DER.element(0x0C, Array(topic.utf8))
            content += DER.element(0x30, DER.element(0x0C, Array(kind.utf8)))
        }
        let value = DER.element(0x30, content)
        guard let oid = OBJ_txt2obj("1.2.840.113635.100.6.3.6", 1) else { throw CryptoError.openSSL("topics OID") }
        defer { ASN1_OBJECT_free(oid) }
        guard let octets = ASN1_OCTET_STRING_new() else { throw CryptoError.openSSL("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(octets) }
        guard ASN1_OCTET_STRING_set(octets, value, Int32(value.count)) == 1,
              let created = X509_EXTENSION_create_by_OBJ(nil, oid, 0, octets) else {
            throw CryptoError.openSSL("topics extension")
        }
        defer { X509_EXTENSION_free(created) }
        guard X509_add_ext(certificate, created, -1) == 1 else { throw CryptoError.openSSL("X509_add_ext") }
    }
}

/// DER's tag-length-value, for the one extension OpenSSL's config syntax would make awkward.
private enum DER {
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var remaining = content.count
            while remaining > 0 {
                length.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }
}

/// What making a certificate takes, shared by the CA and the certificates it issues.
private enum CertificateBuilding {
    /// A version 3 certificate of `key`, with a random serial, valid from a minute ago.
    static func newCertificate(key: OpaquePointer, validFor seconds: Int) throws(CryptoError) -> OpaquePointer {
        guard let certificate = X509_new() else { throw CryptoError.openSSL("X509_new") }
        let serialBytes = SecureRandom.bytes(16)
        let serial = serialBytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 16, nil) }
        defer { BN_free(serial) }
        guard X509_set_version(certificate, 2) == 1,
              let serial, BN_set_bit(serial, 126) == 1, BN_clear_bit(serial, 127) == 1,
              BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate)) != nil,
              X509_gmtime_adj(X509_getm_notBefore(certificate), -60) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), seconds) != nil,
              X509_set_pubkey(certificate, key) == 1
        else {
            X509_free(certificate)
            throw CryptoError.openSSL("certificate fields")
        }
        return certificate
    }

    static func addExtension(_ nid: Int32, _ value: String, to certificate: OpaquePointer,
                             issuer: OpaquePointer) throws(CryptoError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, certificate, nil, nil, 0)
        guard let created = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw CryptoError.openSSL("extension \(value)")
        }
        defer { X509_EXTENSION_free(created) }
        guard X509_add_ext(certificate, created, -1) == 1 else { throw CryptoError.openSSL("X509_add_ext") }
    }
}
