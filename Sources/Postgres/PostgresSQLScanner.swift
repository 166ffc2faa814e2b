/// Just enough of PostgreSQL's lexer to find `$n` placeholders outside string literals,
/// quoted identifiers, dollar-quoted strings and comments, so fragments can be renumbered.
enum PostgresSQLScanner {
    static func shiftingPlaceholders(in sql: String, by offset: Int) -> String {
        guard offset != 0, sql.utf8.contains(UInt8(ascii: "$")) else { return sql }
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var index = 0

        func copy(upTo end: Int) {
            output += bytes[index..<min(end, bytes.count)]
            index = min(end, bytes.count)
        }

        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            let previous = index > 0 ? bytes[index - 1] : 0
            switch byte {
            case UInt8(ascii: "'"):
                // E'…' strings also end at an unescaped quote but allow backslash escapes.
                let escapes = (previous == UInt8(ascii: "E") || previous == UInt8(ascii: "e"))
                    && (index < 2 || !isIdentifierByte(bytes[index - 2]))
                copy(upTo: endOfQuoted(bytes, from: index, quote: byte, backslashEscapes: escapes))
            case UInt8(ascii: "\""):
                copy(upTo: endOfQuoted(bytes, from: index, quote: byte, backslashEscapes: false))
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                copy(upTo: (bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count - 1) + 1)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                copy(upTo: endOfBlockComment(bytes, from: index))
            case UInt8(ascii: "$") where !isIdentifierByte(previous) && isDigit(next):
                var end = index + 1
                var number = 0
                while end < bytes.count, isDigit(bytes[end]) {
                    number = number * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                    end += 1
                }
                output += Array("$\(number + offset)".utf8)
                index = end
            case UInt8(ascii: "$") where !isIdentifierByte(previous):
                if let end = endOfDollarQuoted(bytes, from: index) {
                    copy(upTo: end)
                } else {
                    copy(upTo: index + 1)
                }
            default:
                copy(upTo: index + 1)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    /// Index just past the closing quote; a doubled quote is an escaped quote.
    private static func endOfQuoted(_ bytes: [UInt8], from start: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
        var index = start + 1
        while index < bytes.count {
            if backslashEscapes && bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == quote {
                if index + 1 < bytes.count && bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }

    private static func endOfBlockComment(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 2
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") { return index + 2 }
            index += 1
        }
        return bytes.count
    }

    /// `$tag$ … $tag$`; nil when the `$` does not open a dollar quote.
    private static func endOfDollarQuoted(_ bytes: [UInt8], from start: Int) -> Int? {
        var tagEnd = start + 1
        while tagEnd < bytes.count, bytes[tagEnd] != UInt8(ascii: "$") {
            guard isIdentifierByte(bytes[tagEnd]), !(tagEnd == start + 1 && isDigit(bytes[tagEnd])) else { return nil }
            tagEnd += 1
        }
        guard tagEnd < bytes.count else { return nil }
        let tag = bytes[start...tagEnd]
        var index = tagEnd + 1
        while index + tag.count <= bytes.count {
            if bytes[index..<index + tag.count].elementsEqual(tag) { return index + tag.count }
            index += 1
        }
        return bytes.count
    }
}
