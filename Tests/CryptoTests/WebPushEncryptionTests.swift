import Crypto
import Testing

/// RFC 8291 Appendix A's worked example, byte for byte: the browser's keys and auth secret, the
/// sender's ephemeral key and the salt are fixed, so the body is the RFC's.
@Suite struct WebPushEncryptionTests {
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let authSecret = bytes("BTBZMqHH6r4Tts7J_aSIgg")
    static let receiverPrivate = bytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let receiverPublic = bytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
    static let senderPrivate = bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let senderPublic = bytes("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    static let salt = bytes("DGv6ra1nlYgDCS1FRnbzlw")
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(text)! }

    @Test func keysFromTheRFCsScalarsDeriveItsPublicKeysAndSharedSecret() throws {
        let sender = try P256KeyPair(scalar: Self.senderPrivate)
        let receiver = try P256KeyPair(scalar: Self.receiverPrivate)
        #expect(sender.publicKey == Self.senderPublic)
        #expect(receiver.publicKey == Self.receiverPublic)
        let secret = Self.bytes("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs")
        #expect(try sender.sharedSecret(with: Self.receiverPublic) == secret)
        #expect(try receiver.sharedSecret(with: Self.senderPublic) == secret)
    }

    /// The EC-layer agreement each push makes gives the RFC's public key and shared secret for
    /// its scalar, and the secret EVP's ECDH (the browser's side) agrees with for a random one.
    @Test func theSendersAgreementMatchesTheRFCAndTheBrowsersSide() throws {
        let agreement = try P256EphemeralAgreement(peer: Self.receiverPublic, scalar: Self.senderPrivate)
        #expect(agreement.publicKey == Self.senderPublic)
        #expect(agreement.secret == Self.bytes("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"))
        let receiver = try P256KeyPair(scalar: Self.receiverPrivate)
        let fresh = try P256EphemeralAgreement(peer: Self.receiverPublic)
        let again = try P256EphemeralAgreement(peer: Self.receiverPublic)
        #expect(fresh.publicKey != again.publicKey)
        #expect(try receiver.sharedSecret(with: fresh.publicKey) == fresh.secret)
        #expect(try receiver.sharedSecret(with: again.publicKey) == again.secret)
    }

    @Test func theAgreementRefusesPointsOffTheCurveAndScalarsOutOfRange() throws {
        var offCurve = Self.receiverPublic
        offCurve[64] ^= 1
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: offCurve) }
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: Array(Self.receiverPublic.prefix(33))) }
        var compressed = Array(Self.receiverPublic.prefix(33))
        compressed[0] = 0x02
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: compressed) }
        // The x-coordinate at the prime itself is not a field element.
        let prime = [UInt8](hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")!
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: [0x04] + prime + Array(Self.receiverPublic.suffix(32))) }
        let order = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: Self.receiverPublic, scalar: order) }
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: Self.receiverPublic, scalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try P256EphemeralAgreement(peer: Self.receiverPublic, scalar: [1]) }
    }

    @Test func encryptsTheRFCsExampleExactly() throws {
        let sealed = try WebPushEncryption.encrypt(Self.plaintext, receiverPublicKey: Self.receiverPublic,
                                                   authSecret: Self.authSecret, senderScalar: Self.senderPrivate, salt: Self.salt)
        #expect(Base64URL.encode(sealed) == Self.body)
    }

    @Test func decryptsTheRFCsExampleWithTheBrowsersKey() throws {
        let receiver = try P256KeyPair(scalar: Self.receiverPrivate)
        #expect(try WebPushEncryption.decrypt(Self.bytes(Self.body), receiver: receiver, authSecret: Self.authSecret) == Self.plaintext)
    }

    @Test func aFreshKeyAndSaltEachTimeAndOnlyTheRightSecretOpensIt() throws {
        let receiver = try P256KeyPair.generate()
        let auth = SecureRandom.bytes(16)
        let first = try WebPushEncryption.encrypt(Self.plaintext, receiverPublicKey: receiver.publicKey, authSecret: auth)
        let second = try WebPushEncryption.encrypt(Self.plaintext, receiverPublicKey: receiver.publicKey, authSecret: auth)
        #expect(first.prefix(16) != second.prefix(16))
        #expect(first[21..<86] != second[21..<86])
        #expect(first.count == 86 + Self.plaintext.count + 1 + 16)
        #expect(try WebPushEncryption.decrypt(first, receiver: receiver, authSecret: auth) == Self.plaintext)
        #expect(throws: CryptoError.self) { try WebPushEncryption.decrypt(first, receiver: receiver, authSecret: SecureRandom.bytes(16)) }
        var changed = first
        changed[100] ^= 1
        #expect(throws: CryptoError.self) { try WebPushEncryption.decrypt(changed, receiver: receiver, authSecret: auth) }
    }

    /// The shared curve parameters and HMAC context are read by every push at once: each
    /// thread's bodies must still open with its own browser's keys, and differ from each other.
    @Test func encryptsOnManyThreadsAtOnceAndEveryBodyOpens() async throws {
        let browsers = try (0..<4).map { _ in (key: try P256KeyPair.generate(), auth: SecureRandom.bytes(16)) }
        let bodies = try await withThrowingTaskGroup(of: [(Int, [UInt8], [UInt8])].self) { group in
            for (index, browser) in browsers.enumerated() {
                let publicKey = browser.key.publicKey, auth = browser.auth
                group.addTask {
                    try (0..<50).map { push in
                        let plaintext = Array("push \(push) to browser \(index)".utf8)
                        return (index, plaintext, try WebPushEncryption.encrypt(plaintext, receiverPublicKey: publicKey, authSecret: auth))
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(bodies.count == 200)
        #expect(Set(bodies.map { $0.2.prefix(16) }).count == 200)
        for (index, plaintext, body) in bodies {
            #expect(try WebPushEncryption.decrypt(body, receiver: browsers[index].key, authSecret: browsers[index].auth) == plaintext)
            let other = browsers[(index + 1) % browsers.count]
            #expect(throws: CryptoError.self) { try WebPushEncryption.decrypt(body, receiver: other.key, authSecret: other.auth) }
        }
    }

    @Test func aMessageFillsOneRecordAtMost() throws {
        let receiver = try P256KeyPair.generate()
        let auth = SecureRandom.bytes(16)
        let largest = [UInt8](repeating: 0x41, count: WebPushEncryption.maxPlaintextSize)
        #expect(WebPushEncryption.maxPlaintextSize == 3993)
        #expect(try WebPushEncryption.encrypt(largest, receiverPublicKey: receiver.publicKey, authSecret: auth).count == 4096)
        #expect(throws: CryptoError.self) {
            try WebPushEncryption.encrypt(largest + [0x41], receiverPublicKey: receiver.publicKey, authSecret: auth)
        }
    }
}

@Suite struct P256KeyPairTests {
    @Test func importsPKCS8AndSEC1PEMAndTheScalarToTheSameKey() throws {
        let key = try P256KeyPair.generate()
        let pkcs8 = try key.privateKeyPEM()
        #expect(pkcs8.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try P256KeyPair(pem: pkcs8).publicKey == key.publicKey)
        let rfc = try P256KeyPair(scalar: WebPushEncryptionTests.senderPrivate)
        #expect(try P256KeyPair(pem: rfc.privateKeyPEM()).publicKey == WebPushEncryptionTests.senderPublic)
        // The RFC 8291 sender key as SEC1 ("EC PRIVATE KEY"), as `openssl ec` writes it.
        let sec1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIMn1j4mBPp+Ohy5x9CqmThdXySVNzGK3LdwBC7QEPqEcoAoGCCqGSM49
        AwEHoUQDQgAE/jP0qw3qcZFNtVgj9ztUlI9BMG2SBzLbuaWaUyhkgiAOWXp7e8Jg
        uhwieZhYCZLpOXMALzASooro8Gu7eOXsDw==
        -----END EC PRIVATE KEY-----
        """
        #expect(try P256KeyPair(pem: sec1).publicKey == WebPushEncryptionTests.senderPublic)
    }

    @Test func refusesWhatIsNotAP256PrivateKey() throws {
        #expect(throws: CryptoError.self) { try P256KeyPair(pem: "not a key") }
        #expect(throws: CryptoError.self) { try P256KeyPair(scalar: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: CryptoError.self) { try P256KeyPair(scalar: [UInt8](repeating: 0, count: 32)) }
        // The group order n and above are not private keys.
        #expect(throws: CryptoError.self) { try P256KeyPair(scalar: [UInt8](repeating: 0xFF, count: 32)) }
        let rsa = try RSASigningKey.generatePEM(bits: 2048)
        #expect(throws: CryptoError.self) { try P256KeyPair(pem: rsa) }
    }

    @Test func checksAPublicPointIsOnTheCurve() throws {
        let point = WebPushEncryptionTests.receiverPublic
        #expect(P256KeyPair.isValidPublicKey(point))
        var offCurve = point
        offCurve[64] ^= 1
        #expect(!P256KeyPair.isValidPublicKey(offCurve))
        #expect(!P256KeyPair.isValidPublicKey(Array(point.prefix(33))))
        #expect(!P256KeyPair.isValidPublicKey([0x05] + point.dropFirst()))
        #expect(throws: CryptoError.self) { try P256KeyPair.generate().sharedSecret(with: offCurve) }
    }

    @Test func vapidHeaderCarriesAJWTSignedByTheKeyForTheAudience() throws {
        let key = try P256KeyPair.generate()
        let header = try VAPID.authorization(key: key, audience: "https://push.example.net", subject: "mailto:ops@example.com",
                                             expiresAt: 1_800_000_000)
        #expect(header.hasPrefix("vapid t="))
        let parts = header.dropFirst("vapid t=".count).components(separatedBy: ", k=")
        #expect(parts.count == 2)
        #expect(parts[1] == Base64URL.encode(key.publicKey))
        let jwt = parts[0].split(separator: ".").map(String.init)
        #expect(jwt.count == 3)
        #expect(String(decoding: Base64URL.decode(jwt[0])!, as: UTF8.self) == #"{"typ":"JWT","alg":"ES256"}"#)
        #expect(String(decoding: Base64URL.decode(jwt[1])!, as: UTF8.self)
            == #"{"aud":"https://push.example.net","exp":1800000000,"sub":"mailto:ops@example.com"}"#)
        let signed = Array((jwt[0] + "." + jwt[1]).utf8)
        #expect(P256KeyPair.isValidES256Signature(Base64URL.decode(jwt[2])!, for: signed, publicKey: key.publicKey))
        #expect(!P256KeyPair.isValidES256Signature(Base64URL.decode(jwt[2])!, for: signed + [0x20], publicKey: key.publicKey))
    }
}
