/// Splits template source into text, `{{ output }}` and `{% tag %}` tokens, applying
/// whitespace control (`{{-`, `-}}`, `{%-`, `-%}`) and taking the bodies of `raw` and
/// `comment` verbatim, so that nothing inside them is parsed.
struct LiquidSourceScanner {
    enum Token: Equatable {
        case text(String)
        case output(String)
        case tag(name: String, markup: String)
    }

    private let bytes: [UInt8]
    private var position = 0
    private var tokens: [Token] = []
    /// Set by a `-}}` or `-%}`: the next text loses its leading whitespace.
    private var trimNextText = false

    private init(_ source: String) {
        bytes = Array(source.utf8)
    }

    static func tokenize(_ source: String) throws(LiquidError) -> [Token] {
        var scanner = LiquidSourceScanner(source)
        try scanner.run()
        return scanner.tokens
    }

    private mutating func run() throws(LiquidError) {
        while position < bytes.count {
            guard let open = findOpener(from: position, where: { $0 == .brace || $0 == .percent }) else {
                appendText(position..<bytes.count)
                position = bytes.count
                break
            }
            appendText(position..<open)
            let isOutput = bytes[open + 1] == .brace
            var start = open + 2
            if start < bytes.count, bytes[start] == .dash {
                trimTrailingWhitespaceOfLastText()
                start += 1
            }
            let closer: UInt8 = isOutput ? .closeBrace : .percent
            guard let close = findCloser(closer, from: start) else {
                throw isOutput ? .unterminatedOutput : .unterminatedTag
            }
            var end = close
            var trimAfter = false
            if end > start, bytes[end - 1] == .dash {
                end -= 1
                trimAfter = true
            }
            position = close + 2
            let markup = string(start..<end)
            if isOutput {
                tokens.append(.output(markup))
                trimNextText = trimAfter
            } else {
                let (name, rest) = Self.splitTagName(markup)
                guard !name.isEmpty else { throw .emptyTag }
                trimNextText = trimAfter
                switch name {
                case "raw":
                    try takeVerbatim(opener: "raw", closer: "endraw", nests: false)
                case "comment":
                    try takeVerbatim(opener: "comment", closer: "endcomment", nests: true)
                case "#":
                    break  // Inline comment.
                default:
                    tokens.append(.tag(name: name, markup: rest))
                }
            }
        }
    }

    /// The body of `raw` or `comment`, up to its closing tag. A `raw` body becomes text;
    /// a comment body is dropped. Comments nest; `raw` does not.
    private mutating func takeVerbatim(opener: String, closer: String, nests: Bool) throws(LiquidError) {
        var depth = 1
        var searchFrom = position
        while let open = findOpener(from: searchFrom, where: { $0 == .percent }) {
            var start = open + 2
            let trimBefore = start < bytes.count && bytes[start] == .dash
            if trimBefore { start += 1 }
            guard let close = findCloser(.percent, from: start) else { break }
            var end = close
            let trimAfter = end > start && bytes[end - 1] == .dash
            if trimAfter { end -= 1 }
            let (name, _) = Self.splitTagName(string(start..<end))
            searchFrom = close + 2
            if nests, name == opener {
                depth += 1
            } else if name == closer {
                depth -= 1
                if depth == 0 {
                    if opener == "raw" {
                        appendText(position..<open)
                        if trimBefore { trimTrailingWhitespaceOfLastText() }
                    }
                    position = close + 2
                    trimNextText = trimAfter
                    return
                }
            }
        }
        throw .unclosedTag(opener)
    }

    private mutating func appendText(_ range: Range<Int>) {
        var lower = range.lowerBound
        if trimNextText {
            while lower < range.upperBound, Self.isWhitespace(bytes[lower]) { lower += 1 }
            trimNextText = false
        }
        guard lower < range.upperBound else { return }
        // Text on either side of a comment stays apart: `{{-` trims only the text next to it.
        tokens.append(.text(string(lower..<range.upperBound)))
    }

    private mutating func trimTrailingWhitespaceOfLastText() {
        guard case .text(let text)? = tokens.last else { return }
        var utf8 = Array(text.utf8)
        while let last = utf8.last, Self.isWhitespace(last) { utf8.removeLast() }
        if utf8.isEmpty {
            tokens.removeLast()
        } else {
            tokens[tokens.count - 1] = .text(String(decoding: utf8, as: UTF8.self))
        }
    }

    /// The first `{` at or after `from` whose next byte passes `next`.
    private func findOpener(from: Int, where next: (UInt8) -> Bool) -> Int? {
        var index = from
        while index + 1 < bytes.count {
            if bytes[index] == .openBrace, next(bytes[index + 1]) { return index }
            index += 1
        }
        return nil
    }

    /// The index of `closer` followed by `}`, from `from` on.
    private func findCloser(_ closer: UInt8, from: Int) -> Int? {
        var index = from
        while index + 1 < bytes.count {
            if bytes[index] == closer, bytes[index + 1] == .closeBrace { return index }
            index += 1
        }
        return nil
    }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// `if a > 1` → (`if`, `a > 1`); `# note` → (`#`, `note`).
    static func splitTagName(_ markup: String) -> (name: String, rest: String) {
        let utf8 = Array(markup.utf8)
        var index = 0
        while index < utf8.count, isWhitespace(utf8[index]) { index += 1 }
        let nameStart = index
        if index < utf8.count, utf8[index] == UInt8(ascii: "#") {
            index += 1
        } else {
            while index < utf8.count, isWordByte(utf8[index]) { index += 1 }
        }
        let name = String(decoding: utf8[nameStart..<index], as: UTF8.self)
        return (name, String(decoding: utf8[index...], as: UTF8.self))
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "_")
    }
}

extension UInt8 {
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let brace = UInt8(ascii: "{")
    fileprivate static let percent = UInt8(ascii: "%")
    fileprivate static let dash = UInt8(ascii: "-")
}
