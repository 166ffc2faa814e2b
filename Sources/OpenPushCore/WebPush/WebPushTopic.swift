/// RFC 8030 §5.4's `Topic`: at most 32 characters of the URL-safe base64 alphabet. A
/// `collapse_id` that does not fit becomes a digest of itself where the push is sent
/// (`WebPushTopic.digestLength` characters), so a mixed audience is never refused for it.
package enum WebPushTopic {
    package static let maxLength = 32
    /// The length of a digest topic: 24 bytes of SHA-256 in base64url.
    package static let digestLength = 32

    package static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength && text.utf8.allSatisfy(isBase64URL)
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
