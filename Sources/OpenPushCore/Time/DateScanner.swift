/// A cursor over the ASCII bytes of a date text, for `SendAfterDate`. A value type: a caller
/// that wants to look ahead copies it and keeps the copy only if what it read fits.
struct DateScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var atEnd: Bool { index == bytes.count }

    /// Skips spaces and tabs; whether there were any.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        return index > start
    }

    /// Consumes `character` if it comes next (letters in either case).
    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, Self.lowercased(bytes[index]) == Self.lowercased(UInt8(ascii: character)) else { return false }
        index += 1
        return true
    }

    /// A run of `digits` decimal digits (as many as there are, up to its upper bound).
    mutating func number(digits: ClosedRange<Int>) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while count < digits.upperBound, index < bytes.count, Self.isDigit(bytes[index]) {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
            count += 1
        }
        return digits.contains(count) ? value : nil
    }

    /// The digits after a decimal point, as a fraction of a second. Digits past the ninth
    /// (below a nanosecond) are read and dropped.
    mutating func fraction() -> Double? {
        var value: Int64 = 0
        var scale: Int64 = 1
        var count = 0
        while index < bytes.count, Self.isDigit(bytes[index]) {
            if count < 9 {
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                scale *= 10
            }
            index += 1
            count += 1
        }
        return count > 0 ? Double(value) / Double(scale) : nil
    }

    /// A run of ASCII letters, lowercased; nil if a letter does not come next.
    mutating func word() -> String? {
        let start = index
        while index < bytes.count, Self.isLetter(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index].map(Self.lowercased), as: UTF8.self)
    }

    /// A parenthesised comment such as `(PDT)` or `(Pacific Daylight Time)`.
    mutating func comment() -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "(") else { return false }
        guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ")")) else { return false }
        index = close + 1
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
