/// Turns the markup inside `{{ }}` or after a tag name into lexemes.
struct LiquidLexer {
    enum Lexeme: Equatable {
        /// A name or keyword: `user`, `and`, `contains`, `reversed`, `empty?`.
        case identifier(String)
        case string(String)
        case integer(Int64)
        case float(Double)
        /// `==`, `!=`, `<>`, `<`, `>`, `<=`, `>=`.
        case comparison(String)
        case dot, range, pipe, colon, comma, assign
        case openBracket, closeBracket, openParen, closeParen

        var text: String {
            switch self {
            case .identifier(let name): name
            case .string(let string): "\"\(string)\""
            case .integer(let int): String(int)
            case .float(let double): String(double)
            case .comparison(let op): op
            case .dot: "."
            case .range: ".."
            case .pipe: "|"
            case .colon: ":"
            case .comma: ","
            case .assign: "="
            case .openBracket: "["
            case .closeBracket: "]"
            case .openParen: "("
            case .closeParen: ")"
            }
        }
    }

    static func lex(_ markup: String) throws(LiquidError) -> [Lexeme] {
        let bytes = Array(markup.utf8)
        var lexemes: [Lexeme] = []
        var index = 0
        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }
        while index < bytes.count {
            let byte = bytes[index]
            if LiquidSourceScanner.isWhitespace(byte) {
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                guard let close = bytes[(index + 1)...].firstIndex(of: byte) else {
                    throw LiquidError("unterminated string")
                }
                lexemes.append(.string(String(decoding: bytes[(index + 1)..<close], as: UTF8.self)))
                index = close + 1
            case UInt8(ascii: "="), UInt8(ascii: "!"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                let pair = peek(1).map { String(decoding: [byte, $0], as: UTF8.self) }
                if let pair, ["==", "!=", "<>", "<=", ">="].contains(pair) {
                    lexemes.append(.comparison(pair))
                    index += 2
                } else if byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") {
                    lexemes.append(.comparison(String(UnicodeScalar(byte))))
                    index += 1
                } else if byte == UInt8(ascii: "=") {
                    lexemes.append(.assign)
                    index += 1
                } else {
                    throw LiquidError("unexpected character '!'")
                }
            case UInt8(ascii: "."):
                if peek(1) == UInt8(ascii: ".") {
                    lexemes.append(.range)
                    index += 2
                } else {
                    lexemes.append(.dot)
                    index += 1
                }
            case UInt8(ascii: "|"): lexemes.append(.pipe); index += 1
            case UInt8(ascii: ":"): lexemes.append(.colon); index += 1
            case UInt8(ascii: ","): lexemes.append(.comma); index += 1
            case UInt8(ascii: "["): lexemes.append(.openBracket); index += 1
            case UInt8(ascii: "]"): lexemes.append(.closeBracket); index += 1
            case UInt8(ascii: "("): lexemes.append(.openParen); index += 1
            case UInt8(ascii: ")"): lexemes.append(.closeParen); index += 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                if byte == UInt8(ascii: "-") {
                    guard let next = peek(1), isDigit(next) else { throw LiquidError("unexpected character '-'") }
                    index += 1
                }
                while let next = peek(), isDigit(next) { index += 1 }
                var isFloat = false
                if peek() == UInt8(ascii: "."), let after = peek(1), isDigit(after) {
                    isFloat = true
                    index += 1
                    while let next = peek(), isDigit(next) { index += 1 }
                }
                if let next = peek(), isIdentifierByte(next) {
                    throw LiquidError("unexpected character '\(String(UnicodeScalar(next)))'")
                }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                if !isFloat, let int = Int64(text) {
                    lexemes.append(.integer(int))
                } else {
                    lexemes.append(.float(Double(text) ?? 0))
                }
            default:
                guard isIdentifierStart(byte) else {
                    let scalar = String(decoding: bytes[index...].prefix(4), as: UTF8.self).first.map(String.init) ?? "?"
                    throw LiquidError("unexpected character '\(scalar)'")
                }
                let start = index
                index += 1
                while let next = peek(), isIdentifierByte(next) || next == UInt8(ascii: "-") { index += 1 }
                if peek() == UInt8(ascii: "?") { index += 1 }
                lexemes.append(.identifier(String(decoding: bytes[start..<index], as: UTF8.self)))
            }
        }
        return lexemes
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        LiquidSourceScanner.isWordByte(byte) && !isDigit(byte)
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        LiquidSourceScanner.isWordByte(byte)
    }
}
