/// An APNs device token as an SDK sends it: hex text of even length. Apple documents the token
/// as opaque and has changed its size before, so only sane bounds are enforced, not a length.
/// Tokens are stored lower-cased so one device always lands on one row.
package enum DeviceToken {
    /// Hex characters: 8 to 256 bytes of token.
    package static let lengths: ClosedRange<Int> = 16...512

    /// What is wrong with `text` as a token, worded to follow the field name; nil when well formed.
    package static func problem(_ text: String) -> String? {
        let count = text.utf8.count
        guard lengths.contains(count) else {
            return "must be \(lengths.lowerBound) to \(lengths.upperBound) hex characters, got \(count)"
        }
        guard text.utf8.allSatisfy(isHexDigit) else { return "must be hex (0-9, a-f)" }
        guard count.isMultiple(of: 2) else { return "must have an even number of hex characters" }
        return nil
    }

    package static func normalized(_ text: String) -> String { text.lowercased() }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }
}

extension FieldReader {
    /// A device token, checked and lower-cased; a bad one is recorded as a problem naming `key`.
    package mutating func deviceToken(_ key: String, required: Bool = false) -> String? {
        guard let text = string(key, required: required) else { return nil }
        if let problem = DeviceToken.problem(text) {
            self.problem("\(key) \(problem)")
            return nil
        }
        return DeviceToken.normalized(text)
    }
}
