/// Builds the node tree from the scanner's tokens, checking that every block is closed and
/// every tag, filter and expression is known and well formed.
struct LiquidParser {
    typealias Token = LiquidSourceScanner.Token

    private let tokens: [Token]
    private var index = 0
    /// The blocks open around the current position, innermost last.
    private var openBlocks: [String] = []
    /// Bounds recursion while parsing and rendering.
    private static let maximumNesting = 100

    /// Block tags and their closing tags.
    private static let blockEnds = ["if": "endif", "unless": "endunless", "case": "endcase", "for": "endfor",
                                    "capture": "endcapture", "raw": "endraw", "comment": "endcomment"]
    private static let blockOpeners = Dictionary(uniqueKeysWithValues: blockEnds.map { ($1, $0) })

    static func parse(_ source: String) throws(LiquidError) -> [LiquidNode] {
        var parser = LiquidParser(tokens: try LiquidSourceScanner.tokenize(source))
        let (nodes, _) = try parser.body(until: [])
        return nodes
    }

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    /// Nodes up to one of `delimiters` (such as `else` or `endif`), which is returned with its
    /// markup; `nil` at the end of the source.
    private mutating func body(until delimiters: Set<String>) throws(LiquidError)
        -> ([LiquidNode], (name: String, markup: String)?)
    {
        var nodes: [LiquidNode] = []
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .text(let text):
                nodes.append(.text(text))
            case .output(let markup):
                let shown = markup.count > 40 ? markup.prefix(36) + "... " : markup
                var parser = try LiquidExpressionParser(markup, context: "output '{{\(shown)}}'")
                if parser.isAtEnd { continue }
                nodes.append(.output(try parser.filteredExpression()))
            case .tag(let name, let markup):
                if delimiters.contains(name) { return (nodes, (name, markup)) }
                nodes.append(try tag(name, markup))
            }
        }
        if let open = openBlocks.last { throw .unclosedTag(open) }
        return (nodes, nil)
    }

    private mutating func tag(_ name: String, _ markup: String) throws(LiquidError) -> LiquidNode {
        guard openBlocks.count < Self.maximumNesting else { throw LiquidError("tags nested too deeply") }
        var parser = try LiquidExpressionParser(markup, context: "tag '\(name)'")
        switch name {
        case "if", "unless":
            return try conditional(name, first: try parser.condition(), parser)
        case "case":
            let subject = try parser.expression()
            try parser.expectEnd()
            return try switchCase(subject)
        case "for":
            return try loop(&parser)
        case "assign":
            let variable = try parser.identifier()
            try parser.expect(.assign)
            return .assign(name: variable, value: try parser.filteredExpression())
        case "echo":
            return .output(try parser.filteredExpression())
        case "capture":
            let variable: String
            switch parser.next() {
            case .identifier(let name)?, .string(let name)?: variable = name
            default: throw parser.malformed()
            }
            try parser.expectEnd()
            openBlocks.append("capture")
            defer { openBlocks.removeLast() }
            let (body, _) = try self.body(until: ["endcapture"])
            return .capture(name: variable, body: body)
        case "break", "continue":
            try parser.expectEnd()
            return name == "break" ? .breakLoop : .continueLoop
        default:
            if let opener = Self.blockOpeners[name] {
                if let open = openBlocks.last, openBlocks.contains(opener) { throw .unclosedTag(open) }
                throw .orphanEnd(name, opener: opener)
            }
            if ["else", "elsif", "when"].contains(name) { throw .unexpected(name) }
            throw .unknownTag(name)
        }
    }

    private mutating func conditional(_ name: String, first: LiquidCondition, _ parser: LiquidExpressionParser)
        throws(LiquidError) -> LiquidNode
    {
        try parser.expectEnd()
        openBlocks.append(name)
        defer { openBlocks.removeLast() }
        let end = Self.blockEnds[name]!
        var branches: [LiquidNode.Branch] = []
        var condition = name == "unless" ? LiquidCondition.not(first) : first
        while true {
            let (nodes, delimiter) = try body(until: ["elsif", "else", end])
            branches.append(LiquidNode.Branch(condition: condition, body: nodes))
            guard let delimiter else { throw .unclosedTag(name) }
            switch delimiter.name {
            case "elsif":
                var parser = try LiquidExpressionParser(delimiter.markup, context: "tag 'elsif'")
                condition = try parser.condition()
                try parser.expectEnd()
            case "else":
                try expectNoMarkup(delimiter)
                let (otherwise, close) = try body(until: ["elsif", "else", end])
                guard let close else { throw .unclosedTag(name) }
                guard close.name == end else { throw .unexpected(close.name) }
                return .conditional(branches: branches, otherwise: otherwise)
            default:
                return .conditional(branches: branches, otherwise: nil)
            }
        }
    }

    private mutating func switchCase(_ subject: LiquidExpression) throws(LiquidError) -> LiquidNode {
        openBlocks.append("case")
        defer { openBlocks.removeLast() }
        // Liquid ignores whatever comes between `case` and the first `when`.
        var (_, delimiter) = try body(until: ["when", "else", "endcase"])
        var whens: [LiquidNode.When] = []
        while let current = delimiter {
            switch current.name {
            case "when":
                var parser = try LiquidExpressionParser(current.markup, context: "tag 'when'")
                var values = [try parser.expression()]
                while parser.accept(.comma) || parser.accept(.identifier("or")) {
                    values.append(try parser.expression())
                }
                try parser.expectEnd()
                let (nodes, next) = try body(until: ["when", "else", "endcase"])
                whens.append(LiquidNode.When(values: values, body: nodes))
                delimiter = next
            case "else":
                try expectNoMarkup(current)
                let (otherwise, close) = try body(until: ["when", "else", "endcase"])
                guard let close else { throw .unclosedTag("case") }
                guard close.name == "endcase" else { throw .unexpected(close.name) }
                return .switchCase(subject: subject, whens: whens, otherwise: otherwise)
            default:
                return .switchCase(subject: subject, whens: whens, otherwise: nil)
            }
        }
        throw .unclosedTag("case")
    }

    private mutating func loop(_ parser: inout LiquidExpressionParser) throws(LiquidError) -> LiquidNode {
        let variable = try parser.identifier()
        guard parser.accept(.identifier("in")) else { throw parser.malformed() }
        let collection = try parser.expression()
        var limit: LiquidExpression?
        var offset: LiquidExpression?
        var reversed = false
        while !parser.isAtEnd {
            _ = parser.accept(.comma)
            guard case .identifier(let word)? = parser.peek(),
                ["reversed", "limit", "offset"].contains(word)
            else { throw parser.malformed() }
            _ = parser.next()
            if word == "reversed" {
                reversed = true
                continue
            }
            try parser.expect(.colon)
            if word == "limit" {
                limit = try parser.expression()
            } else {
                offset = try parser.expression()
            }
        }
        openBlocks.append("for")
        defer { openBlocks.removeLast() }
        let (body, delimiter) = try self.body(until: ["else", "endfor"])
        var otherwise: [LiquidNode]?
        if let delimiter, delimiter.name == "else" {
            try expectNoMarkup(delimiter)
            let (nodes, close) = try self.body(until: ["else", "endfor"])
            guard let close else { throw .unclosedTag("for") }
            guard close.name == "endfor" else { throw .unexpected(close.name) }
            otherwise = nodes
        } else if delimiter == nil {
            throw .unclosedTag("for")
        }
        return .loop(LiquidNode.Loop(variable: variable, collection: collection, limit: limit, offset: offset,
                                     reversed: reversed, body: body, otherwise: otherwise))
    }

    private func expectNoMarkup(_ delimiter: (name: String, markup: String)) throws(LiquidError) {
        guard delimiter.markup.allSatisfy(\.isWhitespace) else {
            throw LiquidError("malformed tag '\(delimiter.name)'")
        }
    }
}
