import Testing
@testable import Crypto

@Suite struct P256SigningKeyTests {
    @Test func acceptsAP256PKCS8Key() throws {
        let pem = TestKeys.ecPrivateKeyPEM(curve: "P-256")
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try P256SigningKey(pem: pem)
        // SubjectPublicKeyInfo for P-256: 26-byte header + uncompressed point (65 bytes).
        #expect(key.publicKeyDER.count == 91)
    }

    @Test func rejectsAnRSAKey() {
        let error = #expect(throws: CryptoError.self) {
            try P256SigningKey(pem: TestKeys.rsaPrivateKeyPEM())
        }
        #expect(error?.message.contains("not an EC") == true)
    }

    @Test func rejectsAnotherCurve() {
        let error = #expect(throws: CryptoError.self) {
            try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-384"))
        }
        #expect(error?.message.contains("secp384r1") == true)
    }

    @Test func rejectsAPublicKey() {
        let pem = TestKeys.publicKeyPEM(ofPrivateKeyPEM: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(throws: CryptoError.self) { try P256SigningKey(pem: pem) }
    }

    @Test(arguments: [
        "",
        "garbage",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    ])
    func rejectsGarbage(_ pem: String) {
        let error = #expect(throws: CryptoError.self) { try P256SigningKey(pem: pem) }
        #expect(error?.message.isEmpty == false)
    }

    @Test func rejectsAnEncryptedKey() throws {
        // The key's passphrase callback supplies none, so this fails instead of OpenSSL's
        // default callback prompting on a terminal.
        let pem = TestKeys.encryptedP256PrivateKeyPEM(passphrase: "secret")
        #expect(pem.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        #expect(throws: CryptoError.self) { try P256SigningKey(pem: pem) }
    }

    @Test func es256SignaturesVerifyIncludingLeadingZeroCoordinates() throws {
        let key = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        var leadingZeroR = 0
        var leadingZeroS = 0
        // r and s each start with a zero byte once in 256 signatures: sign at least 300, and on
        // until both cases have come up (the cap makes a miss astronomically unlikely).
        var index = 0
        while index < 300 || leadingZeroR == 0 || leadingZeroS == 0, index < 20_000 {
            defer { index += 1 }
            let message = Array("header.payload.\(index)".utf8)
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            if signature[0] == 0 { leadingZeroR += 1 }
            if signature[32] == 0 { leadingZeroS += 1 }
            let verified = try TestKeys.verifyES256(
                rawSignature: signature, message: message, publicKeyDER: key.publicKeyDER)
            #expect(verified, "signature \(index) did not verify")

            var tampered = message
            tampered[0] ^= 1
            #expect(try !TestKeys.verifyES256(
                rawSignature: signature, message: tampered, publicKeyDER: key.publicKeyDER))
        }
        #expect(leadingZeroR > 0 && leadingZeroS > 0, "no leading-zero r or s in \(index) signatures")
    }

    @Test func signaturesFromAnotherKeyDoNotVerify() throws {
        let signer = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        let other = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        let message = Array("hello".utf8)
        let signature = try signer.signES256(message)
        #expect(try !TestKeys.verifyES256(rawSignature: signature, message: message, publicKeyDER: other.publicKeyDER))
    }
}
