/// `%XX` decoding for path segments and query arguments. Malformed escapes are left as they
/// are, and bytes that do not form UTF-8 become U+FFFD.
enum PercentDecoding {
    static func decode<S: StringProtocol>(_ text: S) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2,
               let high = hexValue(rest[rest.startIndex]),
               let low = hexValue(rest[rest.startIndex + 1]) {
                bytes.append(high << 4 | low)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
