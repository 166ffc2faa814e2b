/// Parses the lexemes of one output or tag into expressions, filters and conditions.
struct LiquidExpressionParser {
    typealias Lexeme = LiquidLexer.Lexeme

    private let lexemes: [Lexeme]
    private var index = 0
    /// Brackets and parentheses open at this point, bounded so that parsing and evaluation
    /// cannot exhaust the stack.
    private var depth = 0
    private static let maximumDepth = 32
    /// What to call the markup in an error: `output`, `tag 'if'`.
    private let context: String

    init(_ markup: String, context: String) throws(LiquidError) {
        lexemes = try LiquidLexer.lex(markup)
        self.context = context
    }

    var isAtEnd: Bool { index >= lexemes.count }

    func peek(_ offset: Int = 0) -> Lexeme? {
        index + offset < lexemes.count ? lexemes[index + offset] : nil
    }

    mutating func next() -> Lexeme? {
        defer { index += 1 }
        return peek()
    }

    /// Consumes `lexeme` if it comes next.
    mutating func accept(_ lexeme: Lexeme) -> Bool {
        guard peek() == lexeme else { return false }
        index += 1
        return true
    }

    mutating func expect(_ lexeme: Lexeme) throws(LiquidError) {
        guard accept(lexeme) else { throw malformed() }
    }

    func expectEnd() throws(LiquidError) {
        guard isAtEnd else { throw malformed() }
    }

    mutating func identifier() throws(LiquidError) -> String {
        guard case .identifier(let name)? = peek() else { throw malformed() }
        index += 1
        return name
    }

    /// `invalid output`, or `malformed tag 'if'`, naming the unexpected lexeme when there is one.
    func malformed() -> LiquidError {
        let near = index < lexemes.count ? " near '\(lexemes[index].text)'" : ""
        return LiquidError("malformed \(context)\(near)")
    }

    // MARK: - Expressions

    mutating func expression() throws(LiquidError) -> LiquidExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw LiquidError("expression nested too deeply") }
        switch next() {
        case .string(let string)?: return .literal(.string(string))
        case .integer(let int)?: return .literal(.int(int))
        case .float(let double)?: return .literal(.double(double))
        case .openParen?:
            let lower = try expression()
            try expect(.range)
            let upper = try expression()
            try expect(.closeParen)
            return .range(lower, upper)
        case .identifier(let name)?:
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "nil", "null": return .literal(.null)
            case "empty": return .empty
            case "blank": return .blank
            default: return try lookup(startingWith: .property(name))
            }
        case .openBracket?:
            let key = try expression()
            try expect(.closeBracket)
            return try lookup(startingWith: .subscripted(key))
        default:
            index -= 1
            throw malformed()
        }
    }

    private mutating func lookup(startingWith first: LiquidExpression.Accessor) throws(LiquidError)
        -> LiquidExpression
    {
        var accessors = [first]
        while true {
            if accept(.dot) {
                accessors.append(.property(try identifier()))
            } else if accept(.openBracket) {
                accessors.append(.subscripted(try expression()))
                try expect(.closeBracket)
            } else {
                return .lookup(accessors)
            }
        }
    }

    /// An expression and its filters, to the end of the markup.
    mutating func filteredExpression() throws(LiquidError) -> LiquidFilteredExpression {
        let value = try expression()
        var filters: [LiquidFilterCall] = []
        while accept(.pipe) {
            filters.append(try filterCall())
        }
        try expectEnd()
        return LiquidFilteredExpression(expression: value, filters: filters)
    }

    private mutating func filterCall() throws(LiquidError) -> LiquidFilterCall {
        let name = try identifier()
        guard let filter = LiquidFilter(rawValue: name) else { throw .unknownFilter(name) }
        var arguments: [LiquidExpression] = []
        var named: [String: LiquidExpression] = [:]
        if accept(.colon) {
            repeat {
                if case .identifier(let key)? = peek(), peek(1) == .colon {
                    index += 2
                    guard filter.namedArguments.contains(key) else {
                        throw LiquidError("unknown argument '\(key)' for filter '\(name)'")
                    }
                    named[key] = try expression()
                } else {
                    arguments.append(try expression())
                }
            } while accept(.comma)
        }
        guard filter.arity.contains(arguments.count) else {
            throw LiquidError("wrong number of arguments for filter '\(name)'")
        }
        return LiquidFilterCall(filter: filter, arguments: arguments, namedArguments: named)
    }

    // MARK: - Conditions

    /// Comparisons joined by `and`/`or`, grouped from the right as Liquid does.
    mutating func condition() throws(LiquidError) -> LiquidCondition {
        let first = try comparison()
        var steps: [LiquidCondition.Step] = []
        while case .identifier(let word)? = peek(), word == "and" || word == "or" {
            index += 1
            steps.append(LiquidCondition.Step(isAnd: word == "and", condition: try comparison()))
        }
        return steps.isEmpty ? first : .chain(first, steps)
    }

    private mutating func comparison() throws(LiquidError) -> LiquidCondition {
        let left = try expression()
        let op: LiquidCondition.Operator
        switch peek() {
        case .comparison(let text)?:
            op = text == "<>" ? .notEqual : LiquidCondition.Operator(rawValue: text)!
        case .identifier("contains")?:
            op = .contains
        default:
            return .value(left)
        }
        index += 1
        return .comparison(left, op, try expression())
    }
}
