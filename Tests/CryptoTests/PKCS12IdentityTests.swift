import COpenSSL
import Crypto
import Foundation
import Testing

@Suite struct PKCS12IdentityTests {
    @Test(arguments: [false, true])
    func aKeychainExportOpensWithItsCertificateKeyExpiryAndTopics(legacy: Bool) throws {
        let files = try TestPKCS12Files(bundleID: "com.example.app", topics: ["com.example.app", "com.example.app.voip"], days: 100)
        defer { files.remove() }
        let identity = try PKCS12Identity(der: files.pkcs12(password: "s3cret", legacy: legacy), password: "s3cret")
        #expect(identity.certificatePEM == files.certificatePEM)
        #expect(identity.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(identity.subjectUID == "com.example.app")
        #expect(identity.extensionTopics == ["com.example.app", "com.example.app.voip"])
        let expected = Date().timeIntervalSince1970 + 100 * 86_400
        #expect(abs(Double(identity.notAfter) - expected) < 3_600, "notAfter \(identity.notAfter)")
        // The key is the certificate's: the PEM the transport loads pairs them.
        #expect(Self.keyMatches(certificatePEM: identity.certificatePEM, keyPEM: identity.privateKeyPEM))
    }

    @Test func anEmptyPasswordOpensAFileExportedWithout() throws {
        let files = try TestPKCS12Files(bundleID: "com.example.empty")
        defer { files.remove() }
        let identity = try PKCS12Identity(der: files.pkcs12(password: ""), password: "")
        #expect(identity.subjectUID == "com.example.empty")
        #expect(identity.extensionTopics.isEmpty)
    }

    @Test(arguments: [false, true])
    func aWrongPasswordIsNamed(legacy: Bool) throws {
        let files = try TestPKCS12Files(bundleID: "com.example.app")
        defer { files.remove() }
        let der = try files.pkcs12(password: "right", legacy: legacy)
        #expect(throws: PKCS12Identity.Problem.wrongPassword) { try PKCS12Identity(der: der, password: "wrong") }
        #expect(throws: PKCS12Identity.Problem.wrongPassword) { try PKCS12Identity(der: der, password: "") }
    }

    @Test func aFileWithoutTheKeyOrTheCertificateIsNamed() throws {
        let files = try TestPKCS12Files(bundleID: "com.example.app")
        defer { files.remove() }
        #expect(throws: PKCS12Identity.Problem.noPrivateKey) {
            try PKCS12Identity(der: files.pkcs12(password: "p", contents: .certificateOnly), password: "p")
        }
        #expect(throws: PKCS12Identity.Problem.noCertificate) {
            try PKCS12Identity(der: files.pkcs12(password: "p", contents: .keyOnly), password: "p")
        }
    }

    @Test func bytesThatAreNotPKCS12AreNamed() throws {
        #expect(throws: PKCS12Identity.Problem.notPKCS12) { try PKCS12Identity(der: Array("hello".utf8), password: "") }
        #expect(throws: PKCS12Identity.Problem.notPKCS12) { try PKCS12Identity(der: [], password: "") }
        let files = try TestPKCS12Files(bundleID: "com.example.app")
        defer { files.remove() }
        // A PEM certificate is not a PKCS#12 either.
        #expect(throws: PKCS12Identity.Problem.notPKCS12) { try PKCS12Identity(der: Array(files.certificatePEM.utf8), password: "") }
    }

    /// Checked straight through libcrypto: the key's public half is the certificate's.
    static func keyMatches(certificatePEM: String, keyPEM: String) -> Bool {
        guard let certificate = read(certificatePEM, { PEM_read_bio_X509($0, nil, nil, nil) }) else { return false }
        defer { X509_free(certificate) }
        guard let key = read(keyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else { return false }
        defer { EVP_PKEY_free(key) }
        return X509_check_private_key(certificate, key) == 1
    }

    /// The memory BIO borrows the text: it is read and freed inside the text's scope.
    private static func read(_ pem: String, _ body: (OpaquePointer?) -> OpaquePointer?) -> OpaquePointer? {
        pem.withCString { text in
            let bio = BIO_new_mem_buf(text, -1)
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}
