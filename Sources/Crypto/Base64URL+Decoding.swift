extension Base64URL {
    /// Decodes base64url with or without padding; `nil` for any character outside the
    /// url-safe alphabet (so standard base64's `+` and `/` are refused, as JOSE requires),
    /// anything after padding, or a length no base64 text has. Read byte by byte: the Web Push
    /// send path decodes two subscription keys per push.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { utf8 -> [UInt8]? in
            var end = utf8.count
            while end > 0, utf8[end - 1] == UInt8(ascii: "=") { end -= 1 }
            guard end % 4 != 1 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(end * 3 / 4)
            var accumulator: UInt32 = 0
            var bits = 0
            for index in 0..<end {
                guard let value = sextet(utf8[index]) else { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                }
            }
            return bytes
        }
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
