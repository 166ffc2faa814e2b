import Testing
import Crypto

@Suite struct P256VerifyingKeyTests {
    @Test func verifiesWhatTheSigningKeySigned() throws {
        let signer = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        let verifier = try P256VerifyingKey(publicKeyDER: signer.publicKeyDER)
        let message = Array("header.claims".utf8)
        // Many signatures, so r or s with a leading zero byte turns up.
        for _ in 0..<50 {
            let signature = try signer.signES256(message)
            #expect(verifier.isValidES256Signature(signature, for: message))
            #expect(!verifier.isValidES256Signature(signature, for: Array("header.claimz".utf8)))
        }
    }

    @Test func anotherKeysSignatureFails() throws {
        let signer = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        let other = try P256SigningKey(pem: TestKeys.ecPrivateKeyPEM(curve: "P-256"))
        let verifier = try P256VerifyingKey(publicKeyDER: other.publicKeyDER)
        let message = Array("m".utf8)
        #expect(!verifier.isValidES256Signature(try signer.signES256(message), for: message))
        #expect(!verifier.isValidES256Signature([1, 2, 3], for: message))
    }

    @Test func rejectsNonP256Keys() {
        #expect(throws: CryptoError.self) { try P256VerifyingKey(publicKeyDER: [0x30, 0x00]) }
    }

    @Test(arguments: [
        ("", [UInt8]()), ("AQ", [1]), ("AQI", [1, 2]), ("AQID", [1, 2, 3]), ("-_8", [0xfb, 0xff]), ("AQ==", [1]),
    ])
    func base64URLDecodes(text: String, bytes: [UInt8]) {
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
    }

    @Test(arguments: ["+/8", "a b", "AQ=I", "A"])
    func base64URLRefusesOtherAlphabets(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
