import Testing
import OpenPushCore

/// `apns_p12` with a stand-in for the OpenSSL reader (the real one is exercised through the
/// routes and `CryptoTests`).
@Suite struct AppFieldsCertificateTests {
    static let upload = APNSCertificateUpload(certificatePEM: "CERT\n", privateKeyPEM: "KEY\n", expiresAt: 2_000_000_000,
                                              subjectUID: "com.example.app", extensionTopics: ["com.example.app", "com.example.app.voip"])

    static func read(_ object: JSONObject, for purpose: AppFields.Purpose = .update) throws(InvalidInput) -> AppFields {
        try AppFields.read(object, for: purpose, isP256PrivateKey: { _ in true }, readCertificate: { base64, password in
            base64 == "GOOD" && password == "pw" ? .success(upload) : .failure(password == "pw" ? .notPKCS12 : .wrongPassword)
        })
    }

    @Test func theStoredTextIsTheCertificateThenTheKeyAndTheTopicsStartWithTheUID() {
        #expect(Self.upload.credentialPEM == "CERT\n\nKEY\n")
        #expect(Self.upload.topics == ["com.example.app", "com.example.app.voip"])
    }

    @Test func readsTheFileWithItsPasswordAndNullRemoves() throws {
        #expect(try Self.read(["apns_p12": "GOOD", "apns_p12_password": "pw"]).apnsCertificate == .set(Self.upload))
        #expect(try Self.read(["apns_p12": nil]).apnsCertificate == .clear)
        #expect(try Self.read([:]).apnsCertificate == .keep)
        #expect(throws: InvalidInput([APNSCertificateProblem.wrongPassword.message])) {
            try Self.read(["apns_p12": "GOOD", "apns_p12_password": "nope"])
        }
    }

    @Test func theBundleIDMustBeATopicOrIsTakenFromTheUID() throws {
        var fields = try Self.read(["apns_p12": "GOOD", "apns_p12_password": "pw"])
        var withUID = fields
        try withUID.settleCertificate(currentBundleID: nil, currentTopics: nil, now: 1_000)
        #expect(withUID.apnsBundleID == .set("com.example.app"))
        #expect(throws: InvalidInput([APNSCertificateProblem.topicMissing(bundleID: "com.other",
                                                                          topics: Self.upload.topics).message])) {
            try fields.settleCertificate(currentBundleID: "com.other", currentTopics: nil, now: 1_000)
        }
        #expect(throws: InvalidInput([APNSCertificateProblem.expired(at: 2_000_000_000).message])) {
            try fields.settleCertificate(currentBundleID: "com.example.app", currentTopics: nil, now: 2_000_000_000)
        }
    }
}
