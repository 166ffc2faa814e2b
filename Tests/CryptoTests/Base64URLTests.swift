import Crypto
import Foundation
import Testing

/// base64url as JOSE and Web Push write it: with or without padding, url-safe alphabet only.
@Suite struct Base64URLTests {
    @Test func decodesEveryLengthWithAndWithoutPaddingAsFoundationReadsStandardBase64() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
            let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
            #expect(Base64URL.decode(padded) == bytes, "padded, length \(length)")
            #expect(Base64URL.decode(padded[...]) == bytes, "a substring, length \(length)")
            let standard = padded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            #expect(Data(base64Encoded: standard).map(Array.init) == bytes, "length \(length)")
        }
    }

    @Test func refusesWhatIsNotBase64URL() {
        for text in ["ab+c", "ab/c", "ab c", "a=bc", "abcde", "é", "abc\u{0}", "=abc"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
    }
}
