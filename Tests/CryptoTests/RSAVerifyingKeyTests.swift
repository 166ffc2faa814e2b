import Crypto
import Testing

/// RS256 verification against signatures made directly with libcrypto.
@Suite struct RSAVerifyingKeyTests {
    static let key = TestRSAKey()

    @Test func acceptsAValidSignatureFromThePublicOrThePrivatePEM() throws {
        let message = Array("header.claims".utf8)
        let signature = Self.key.signRS256(message)
        #expect(try RSAVerifyingKey(pem: Self.key.publicKeyPEM).isValidRS256Signature(signature, for: message))
        #expect(try RSAVerifyingKey(pem: Self.key.privateKeyPEM).isValidRS256Signature(signature, for: message))
    }

    @Test func refusesAnotherMessageAKeyOrATamperedSignature() throws {
        let message = Array("header.claims".utf8)
        var signature = Self.key.signRS256(message)
        let verifier = try RSAVerifyingKey(pem: Self.key.publicKeyPEM)
        #expect(!verifier.isValidRS256Signature(signature, for: Array("header.claimz".utf8)))
        #expect(!verifier.isValidRS256Signature([], for: message))
        #expect(try !RSAVerifyingKey(pem: TestRSAKey().publicKeyPEM).isValidRS256Signature(signature, for: message))
        signature[10] ^= 0x01
        #expect(!verifier.isValidRS256Signature(signature, for: message))
    }

    @Test func refusesAnECKeyAndGarbage() throws {
        #expect(throws: CryptoError.self) { try RSAVerifyingKey(pem: SelfSignedCertificate.generate().privateKeyPEM) }
        #expect(throws: CryptoError.self) { try RSAVerifyingKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
    }
}
