import Testing
@testable import Crypto

@Suite struct DigestAndRandomTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256KnownVectors(input: String, expected: String) {
        #expect(SHA256.hash(Array(input.utf8)).hexString == expected)
        // A non-contiguous collection takes the copying path and must agree.
        #expect(SHA256.hash(input.utf8).hexString == expected)
        // Into a caller's buffer: the same 32 bytes, nothing past them touched.
        var output = [UInt8](repeating: 0xAB, count: 40)
        Array(input.utf8).withUnsafeBytes { bytes in
            output.withUnsafeMutableBytes { SHA256.hash(bytes, into: $0) }
        }
        #expect(Array(output.prefix(32)).hexString == expected)
        #expect(output.suffix(8).allSatisfy { $0 == 0xAB })
    }

    @Test func randomBytesHaveTheRequestedLengthAndDiffer() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(1).count == 1)
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
    }

    @Test func constantTimeEquality() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(constantTimeEquals([], []))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!constantTimeEquals([], [0]))
    }

    @Test func hexRoundTrip() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(bytes.hexString == "00017f80abff")
        #expect([UInt8](hex: "00017f80abff") == bytes)
        #expect([UInt8](hex: "00017F80ABFF") == bytes)
        #expect([UInt8](hex: "") == [])
        let random = SecureRandom.bytes(100)
        #expect([UInt8](hex: random.hexString) == random)
        #expect(random[10..<20].hexString == Array(random[10..<20]).hexString)
    }

    @Test(arguments: ["0", "abc", "zz", "0g", " 00", "0x00"])
    func hexRejectsMalformedInput(_ text: String) {
        #expect([UInt8](hex: text) == nil)
    }

    @Test func base64URLHasNoPaddingAndURLSafeAlphabet() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.encode(Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8))
            == "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ")
    }
}
