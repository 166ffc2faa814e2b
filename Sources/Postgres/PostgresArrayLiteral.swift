/// Text form of one-dimensional arrays: `{"a","b \"c\"",NULL}`.
@usableFromInline
enum PostgresArrayLiteral {
    /// Every element is double-quoted (so commas, braces and spaces are inert); `\` and `"` are escaped.
    /// Built as bytes: a job's records format thousands of elements per statement.
    static func format(_ elements: [String?]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(2 + elements.count * 40)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let element else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// nil for malformed or multi-dimensional input; unquoted `NULL` is a NULL element.
    /// Elements without backslashes are sliced straight from the text: a job's claim parses
    /// thousands of ids and tokens.
    @usableFromInline
    static func parse(_ text: String) -> [String?]? {
        var text = text
        return text.withUTF8 { bytes -> [String?]? in
            guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
            var elements: [String?] = []
            var index = 1
            let end = bytes.count - 1
            if index == end { return [] }
            var escaped: [UInt8] = []
            while index <= end {
                var quoted = false
                var start = index
                var hasEscape = false
                if bytes[index] == UInt8(ascii: "\"") {
                    quoted = true
                    index += 1
                    start = index
                    while index < end, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\") {
                            hasEscape = true
                            index += 1
                        }
                        guard index < end else { return nil }
                        index += 1
                    }
                    guard index < end else { return nil }
                } else {
                    while index < end, bytes[index] != UInt8(ascii: ",") {
                        let byte = bytes[index]
                        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "\"") { return nil }
                        if byte == UInt8(ascii: "\\") {
                            hasEscape = true
                            index += 1
                        }
                        guard index < end else { return nil }
                        index += 1
                    }
                }
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if quoted { index += 1 }  // closing quote
                if !quoted, !hasEscape, isNull(raw) {
                    elements.append(nil)
                } else if hasEscape {
                    escaped.removeAll(keepingCapacity: true)
                    var position = raw.startIndex
                    while position < raw.endIndex {
                        if raw[position] == UInt8(ascii: "\\") { position += 1 }
                        escaped.append(raw[position])
                        position += 1
                    }
                    elements.append(String(decoding: escaped, as: UTF8.self))
                } else {
                    elements.append(String(decoding: raw, as: UTF8.self))
                }
                guard index == end || bytes[index] == UInt8(ascii: ",") else { return nil }
                index += 1
            }
            return elements
        }
    }

    /// Unquoted `NULL`, in any case.
    private static func isNull(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 4 else { return false }
        return zip(bytes, "NULL".utf8).allSatisfy { $0 == $1 || $0 == $1 | 0x20 }
    }
}

/// `bytea` hex format: `\x` followed by two lowercase hex digits per byte.
@usableFromInline
enum PostgresBytea {
    static func format<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    @usableFromInline
    static func parse(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2 - 1)
        var index = 2
        while index < utf8.count {
            guard let high = HexDigit.value(utf8[index]), let low = HexDigit.value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
