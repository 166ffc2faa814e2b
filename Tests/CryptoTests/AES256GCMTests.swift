import Crypto
import Testing

/// AES-256-GCM: known answers (McGrew and Viega's test cases 13 and 14, also in NIST's GCM
/// vectors), a round trip with random nonces, and refusal of anything changed.
@Suite struct AES256GCMTests {
    @Test func knownAnswers() throws {
        let key = [UInt8](repeating: 0, count: 32), nonce = [UInt8](repeating: 0, count: 12)
        let block = try AES256GCM.seal([UInt8](repeating: 0, count: 16), key: key, nonce: nonce)
        #expect(block.ciphertext.hexString == "cea7403d4d606b6e074ec5d3baf39d18")
        #expect(block.tag.hexString == "d0d1c8a799996bf0265b98b5d48ab919")
        let empty = try AES256GCM.seal([], key: key, nonce: nonce)
        #expect(empty.ciphertext.isEmpty)
        #expect(empty.tag.hexString == "530f8afbc74536b9a963b4f1c4cb738b")
        #expect(try AES256GCM.open(block, key: key) == [UInt8](repeating: 0, count: 16))
    }

    @Test func roundTripWithAFreshNonceEachTime() throws {
        let key = SecureRandom.bytes(32)
        let message = Array("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n".utf8)
        let first = try AES256GCM.seal(message, key: key, additionalData: Array("header".utf8))
        let second = try AES256GCM.seal(message, key: key, additionalData: Array("header".utf8))
        #expect(first.nonce.count == 12 && first.tag.count == 16 && first.ciphertext.count == message.count)
        #expect(first.nonce != second.nonce && first.ciphertext != second.ciphertext)
        #expect(try AES256GCM.open(first, key: key, additionalData: Array("header".utf8)) == message)
        let combined = try #require(AES256GCM.Box(combined: second.combined))
        #expect(combined == second)
        #expect(try AES256GCM.open(combined, key: key, additionalData: Array("header".utf8)) == message)
    }

    /// Every changed byte — of the nonce, the ciphertext or the tag — and a wrong key or wrong
    /// additional data are refused, never opened into other plaintext.
    @Test func anythingChangedIsRefused() throws {
        let key = SecureRandom.bytes(32)
        let box = try AES256GCM.seal(Array("whsec_0123456789abcdef".utf8), key: key, additionalData: [1, 2, 3])
        let combined = box.combined
        for index in combined.indices {
            var changed = combined
            changed[index] ^= 0x01
            let tampered = try #require(AES256GCM.Box(combined: changed))
            #expect(throws: CryptoError.self) { try AES256GCM.open(tampered, key: key, additionalData: [1, 2, 3]) }
        }
        var otherKey = key
        otherKey[0] ^= 0x80
        #expect(throws: CryptoError.self) { try AES256GCM.open(box, key: otherKey, additionalData: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try AES256GCM.open(box, key: key, additionalData: [1, 2, 4]) }
        #expect(throws: CryptoError.self) { try AES256GCM.open(box, key: key) }
        // Still opens untouched.
        #expect(try AES256GCM.open(box, key: key, additionalData: [1, 2, 3]) == Array("whsec_0123456789abcdef".utf8))
    }

    @Test func wrongSizesAreErrors() {
        #expect(throws: CryptoError.self) { try AES256GCM.seal([1], key: SecureRandom.bytes(16)) }
        #expect(throws: CryptoError.self) { try AES256GCM.seal([1], key: SecureRandom.bytes(32), nonce: SecureRandom.bytes(16)) }
        #expect(AES256GCM.Box(combined: SecureRandom.bytes(27)) == nil)
        let box = AES256GCM.Box(nonce: SecureRandom.bytes(12), ciphertext: [1], tag: [1, 2])
        #expect(throws: CryptoError.self) { try AES256GCM.open(box, key: SecureRandom.bytes(32)) }
    }
}
