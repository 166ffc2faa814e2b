/// A value in a template: a literal, a variable lookup or a range.
indirect enum LiquidExpression: Sendable, Equatable {
    case literal(JSONValue)
    /// The `empty` keyword: equal to `""`, `[]` and `{}`.
    case empty
    /// The `blank` keyword: equal to `nil`, `false`, whitespace-only strings, `[]` and `{}`.
    case blank
    /// `(1..n)`; only `for` iterates it, elsewhere it renders as `1..n`.
    case range(LiquidExpression, LiquidExpression)
    /// `user.tags["first name"][0].size`: the first accessor names a variable.
    case lookup([Accessor])

    enum Accessor: Sendable, Equatable {
        /// `.name`; on arrays and strings `size`, `first` and `last` are properties.
        case property(String)
        /// `[expression]`: an index into an array or a key into an object.
        case subscripted(LiquidExpression)
    }
}

/// A filter applied in an output, `assign` or `echo`: `truncate: 20, "…"`.
struct LiquidFilterCall: Sendable, Equatable {
    let filter: LiquidFilter
    let arguments: [LiquidExpression]
    let namedArguments: [String: LiquidExpression]
}

/// An expression followed by filters, as in `{{ name | default: "there" | upcase }}`.
struct LiquidFilteredExpression: Sendable, Equatable {
    let expression: LiquidExpression
    let filters: [LiquidFilterCall]
}
