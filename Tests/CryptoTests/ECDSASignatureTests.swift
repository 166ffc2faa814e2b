import Testing
@testable import Crypto

/// The DER ↔ r‖s conversion on hand-built signatures covering DER's awkward integer forms.
@Suite struct ECDSASignatureTests {
    @Test func highBitCoordinatesLoseTheirSignByte() throws {
        let r = [UInt8](repeating: 0x80, count: 32)
        let s = [UInt8](repeating: 0xFF, count: 32)
        let der: [UInt8] = [0x30, 70, 0x02, 33, 0x00] + r + [0x02, 33, 0x00] + s
        #expect(try ECDSASignature.raw(fromDER: der) == r + s)
    }

    @Test func shortCoordinatesAreLeftPadded() throws {
        let r = [UInt8](repeating: 0x11, count: 31)
        let s: [UInt8] = [0x01]
        let der: [UInt8] = [0x30, UInt8(2 + 31 + 2 + 1), 0x02, 31] + r + [0x02, 1] + s
        let raw = try ECDSASignature.raw(fromDER: der)
        #expect(raw == [0] + r + [UInt8](repeating: 0, count: 31) + s)
    }

    @Test func roundTripsThroughDER() throws {
        for _ in 0..<50 {
            var raw = SecureRandom.bytes(64)
            raw[0] = 0
            raw[33] = 0
            let der = try ECDSASignature.der(fromRaw: raw)
            #expect(der == (try ECDSASignatureDER.fromRaw(raw)))
            #expect(try ECDSASignature.raw(fromDER: der) == raw)
        }
    }

    @Test func rejectsMalformedDER() {
        #expect(throws: CryptoError.self) { try ECDSASignature.raw(fromDER: [0x30, 0x00]) }
        #expect(throws: CryptoError.self) { try ECDSASignature.raw(fromDER: [1, 2, 3]) }
        // A 33-byte magnitude does not fit a P-256 coordinate.
        let big: [UInt8] = [0x30, 38, 0x02, 33, 0x01] + [UInt8](repeating: 1, count: 32) + [0x02, 1, 0x01]
        #expect(throws: CryptoError.self) { try ECDSASignature.raw(fromDER: big) }
    }
}
