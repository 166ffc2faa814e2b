import COpenSSL

/// What an APNs provider certificate file (`.p12`, as Keychain exports it) holds: the client
/// certificate and its private key, as PEM, with what the app settings show of it: when it
/// expires and which topics it may push to.
package struct PKCS12Identity: Sendable, Equatable {
    /// Why a file was refused.
    package enum Problem: Error, Sendable, Equatable {
        /// Not DER-encoded PKCS#12 at all.
        case notPKCS12
        /// The integrity check (MAC) fails with this password.
        case wrongPassword
        /// No certificate in the file.
        case noCertificate
        /// No private key, or none that matches a certificate of the file.
        case noPrivateKey
        /// PKCS#12 with the right password that still does not open (an unsupported cipher, say).
        case unreadable(String)
    }

    package var certificatePEM: String
    /// Unencrypted PKCS#8 (`-----BEGIN PRIVATE KEY-----`).
    package var privateKeyPEM: String
    /// The certificate's notAfter, in seconds since the epoch.
    package var notAfter: Int64
    /// The subject's UID (OID 0.9.2342.19200300.100.1.1): Apple writes the bundle id there.
    package var subjectUID: String?
    /// The topics of Apple's extension 1.2.840.113635.100.6.3.6, in its order; empty without it.
    package var extensionTopics: [String]

    /// Parses `der` with `password` (which may be empty).
    package init(der: [UInt8], password: String) throws(Problem) {
        _ = PKCS12Identity.providers
        ERR_clear_error()
        defer { ERR_clear_error() }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let p12 = parsed else { throw .notPKCS12 }
        defer { PKCS12_free(p12) }

        // An empty password is written either as an empty string or as none at all: try both,
        // as `PKCS12_parse` itself does.
        let candidates: [String?] = password.isEmpty ? ["", nil] : [password]
        var passphrase = candidates[0]
        if PKCS12_mac_present(p12) == 1 {
            guard let match = candidates.first(where: { Self.verifies(p12, $0) }) else { throw .wrongPassword }
            passphrase = match
        }

        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        let opened = withOptionalCString(passphrase) { PKCS12_parse(p12, $0, &key, &certificate, &others) }
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
            OPENSSL_sk_pop_free(others, freeCertificate)
        }
        guard opened == 1 else { throw .unreadable(CryptoError.openSSL("PKCS12_parse").message) }
        // Without a key, or with one no certificate matches, every certificate lands in `others`.
        guard let certificate else {
            throw (others.map { OPENSSL_sk_num($0) } ?? 0) > 0 ? .noPrivateKey : .noCertificate
        }
        guard let key, X509_check_private_key(certificate, key) == 1 else { throw .noPrivateKey }

        do throws(CryptoError) {
            certificatePEM = try PEMText.written { PEM_write_bio_X509($0, certificate) }
            privateKeyPEM = try PEMText.written { PEM_write_bio_PKCS8PrivateKey($0, key, nil, nil, 0, nil, nil) }
        } catch {
            throw .unreadable(error.message)
        }
        guard let notAfter = Self.seconds(X509_get0_notAfter(certificate)) else {
            throw .unreadable("the certificate's notAfter does not read")
        }
        self.notAfter = notAfter
        subjectUID = Self.subjectUID(of: certificate)
        extensionTopics = Self.appleTopics(of: certificate)
    }

    /// OpenSSL 3 leaves RC2 and 3DES (what Keychain and older OpenSSL encrypt `.p12` files with)
    /// to its legacy provider; loading any provider explicitly stops the default one loading on
    /// its own, so both are loaded, once per process.
    private static let providers: Bool = {
        let legacy = OSSL_PROVIDER_load(nil, "legacy")
        let standard = OSSL_PROVIDER_load(nil, "default")
        return legacy != nil && standard != nil
    }()

    /// Apple's topics extension: a SEQUENCE alternating a UTF8String topic and a SEQUENCE of its kinds.
    private static let topicsExtension = "1.2.840.113635.100.6.3.6"
}

extension PKCS12Identity {
    private static func verifies(_ p12: OpaquePointer, _ password: String?) -> Bool {
        withOptionalCString(password) { PKCS12_verify_mac(p12, $0, -1) == 1 }
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time, let epoch = ASN1_TIME_set(nil, 0) else { return nil }
        defer { ASN1_TIME_free(epoch) }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, epoch, time) == 1 else { return nil }
        return Int64(days) * 86_400 + Int64(seconds)
    }

    private static func subjectUID(of certificate: OpaquePointer) -> String? {
        guard let name = X509_get_subject_name(certificate) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        return text(X509_NAME_ENTRY_get_data(entry))
    }

    private static func appleTopics(of certificate: OpaquePointer) -> [String] {
        guard let oid = OBJ_txt2obj(topicsExtension, 1) else { return [] }
        defer { ASN1_OBJECT_free(oid) }
        let index = X509_get_ext_by_OBJ(certificate, oid, -1)
        guard index >= 0, let found = X509_get_ext(certificate, index),
              let value = X509_EXTENSION_get_data(found) else { return [] }
        let length = Int(ASN1_STRING_length(value))
        guard let bytes = ASN1_STRING_get0_data(value) else { return [] }
        var cursor: UnsafePointer<UInt8>? = bytes
        guard let sequence = d2i_ASN1_SEQUENCE_ANY(nil, &cursor, length) else { return [] }
        defer { OPENSSL_sk_pop_free(sequence, freeASN1Type) }
        var topics: [String] = []
        for position in 0..<OPENSSL_sk_num(sequence) {
            guard let raw = OPENSSL_sk_value(sequence, position) else { continue }
            let element = raw.assumingMemoryBound(to: ASN1_TYPE.self)
            guard ASN1_TYPE_get(element) == V_ASN1_UTF8STRING,
                  let topic = text(element.pointee.value.utf8string) else { continue }
            topics.append(topic)
        }
        return topics
    }

    /// An ASN.1 string's text as UTF-8.
    private static func text(_ string: UnsafeMutablePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else { return nil }
        defer { CRYPTO_free(output, nil, 0) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }
}

private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString(body)
}

private func freeCertificate(_ certificate: UnsafeMutableRawPointer?) {
    X509_free(OpaquePointer(certificate))
}

private func freeASN1Type(_ value: UnsafeMutableRawPointer?) {
    ASN1_TYPE_free(value?.assumingMemoryBound(to: ASN1_TYPE.self))
}
