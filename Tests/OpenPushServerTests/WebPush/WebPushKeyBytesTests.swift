import Crypto
@testable import OpenPushDelivery
import Testing

/// The send path's decoder of subscription keys reads what `Base64URL` writes, with or without
/// padding, and refuses what is not base64url.
@Suite struct WebPushKeyBytesTests {
    @Test func decodesEveryLengthAsBase64URLDoes() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(WebPushKeyBytes.decode(text) == bytes, "length \(length)")
            let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
            #expect(WebPushKeyBytes.decode(padded) == bytes, "padded, length \(length)")
            #expect(WebPushKeyBytes.decode(padded) == Base64URL.decode(padded))
        }
    }

    @Test func refusesWhatIsNotBase64URL() {
        for text in ["ab+c", "ab/c", "ab c", "a=bc", "abcde", "é", "abc\u{0}"] {
            #expect(WebPushKeyBytes.decode(text) == nil, "\(text)")
        }
    }
}
