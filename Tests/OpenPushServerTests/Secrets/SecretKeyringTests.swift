import Crypto
import Foundation
import Testing
import OpenPushDelivery
import OpenPushServer

/// Sealing secrets at rest: the `sealed:v1:<key id>:…` format, old keys, values in clear, and
/// clear errors (naming the key) for a missing key or a changed value.
@Suite struct SecretKeyringTests {
    static let hexA = String(repeating: "0123456789abcdef", count: 4)
    static let keyA = SecretKeyring.parseKey(hexA)!
    static let keyB = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!

    @Test func keysAreReadAsHexOrBase64() throws {
        let bytes = try #require([UInt8](hex: Self.hexA))
        let standard = Data(bytes).base64EncodedString()
        let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        for text in [Self.hexA, Self.hexA.uppercased(), standard, urlSafe, " \(Self.hexA) "] {
            #expect(SecretKeyring.parseKey(text) == Self.keyA, "\(text)")
        }
        for bad in ["", "abc", String(Self.hexA.dropLast(2)), Self.hexA + "00", Data(bytes.dropLast()).base64EncodedString(),
                    String(repeating: "zz", count: 32)] {
            #expect(SecretKeyring.parseKey(bad) == nil, "\(bad)")
        }
        // The id is the first 8 hex digits of the key's SHA-256.
        #expect(Self.keyA.id.count == 8 && Self.keyA.id != Self.keyB.id)
    }

    @Test func sealedValuesNameTheirKeyAndOpen() throws {
        let keyring = SecretKeyring(current: Self.keyA)
        let secret = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"
        let sealed = keyring.seal(secret)
        #expect(sealed.hasPrefix("sealed:v1:\(Self.keyA.id):"))
        #expect(!sealed.contains("PRIVATE KEY") && !sealed.contains("MIGHAgEA"))
        #expect(keyring.seal(secret) != sealed)
        #expect(try keyring.open(sealed) == secret)
        #expect(SecretKeyring.keyID(of: sealed) == Self.keyA.id)
        #expect(!keyring.needsResealing(sealed))
    }

    @Test func withoutAKeyNothingIsSealedAndClearValuesReadAsThemselves() throws {
        let none = SecretKeyring()
        #expect(!none.seals)
        #expect(none.seal("whsec_abc") == "whsec_abc")
        #expect(try none.open("whsec_abc") == "whsec_abc")
        #expect(!none.needsResealing("whsec_abc"))
        let keyed = SecretKeyring(current: Self.keyA)
        #expect(try keyed.open("whsec_abc") == "whsec_abc")
        #expect(keyed.needsResealing("whsec_abc"))
        #expect(SecretKeyring.keyID(of: "whsec_abc") == nil)
    }

    @Test func anOldKeyOpensButOnlyTheCurrentOneSeals() throws {
        let before = SecretKeyring(current: Self.keyA)
        let sealedBefore = before.seal("whsec_one")
        let after = SecretKeyring(current: Self.keyB, old: [Self.keyA])
        #expect(try after.open(sealedBefore) == "whsec_one")
        #expect(after.needsResealing(sealedBefore))
        let resealed = after.seal(try after.open(sealedBefore))
        #expect(SecretKeyring.keyID(of: resealed) == Self.keyB.id)
        #expect(!after.needsResealing(resealed))
        // The old key alone cannot open what the new one sealed.
        #expect(throws: SealedSecretError.unknownKey(Self.keyB.id)) { try before.open(resealed) }
    }

    @Test func anUnknownKeyIsAnErrorNamingItsID() {
        let sealed = SecretKeyring(current: Self.keyA).seal("whsec_x")
        let other = SecretKeyring(current: Self.keyB)
        #expect(throws: SealedSecretError.unknownKey(Self.keyA.id)) { try other.open(sealed) }
        #expect(throws: SealedSecretError.unknownKey(Self.keyA.id)) { try SecretKeyring().open(sealed) }
        #expect(SealedSecretError.unknownKey(Self.keyA.id).description.contains(Self.keyA.id))
        #expect(SealedSecretError.unknownKey(Self.keyA.id).reason == "SecretSealedWithUnknownKey")
    }

    /// A changed byte of the sealed text, or a key id swapped for another known key's, is refused.
    @Test func tamperingIsDetected() throws {
        let keyring = SecretKeyring(current: Self.keyA, old: [Self.keyB])
        let sealed = keyring.seal("whsec_secret")
        let payload = String(sealed.split(separator: ":")[3])
        var bytes = Array(payload.utf8)
        let middle = bytes.count / 2
        bytes[middle] = bytes[middle] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let changed = "sealed:v1:\(Self.keyA.id):" + String(decoding: bytes, as: UTF8.self)
        #expect(throws: SealedSecretError.tampered(keyID: Self.keyA.id)) { try keyring.open(changed) }
        let relabelled = "sealed:v1:\(Self.keyB.id):" + payload
        #expect(throws: SealedSecretError.tampered(keyID: Self.keyB.id)) { try keyring.open(relabelled) }
        for malformed in ["sealed:", "sealed:v2:\(Self.keyA.id):\(payload)", "sealed:v1:xyz:\(payload)", "sealed:v1:\(Self.keyA.id):***"] {
            #expect(throws: SealedSecretError.malformed) { try keyring.open(malformed) }
        }
    }
}
