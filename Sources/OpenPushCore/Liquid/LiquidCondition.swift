/// The condition of `if`, `elsif`, `unless` and `when`.
indirect enum LiquidCondition: Sendable, Equatable {
    case value(LiquidExpression)
    case comparison(LiquidExpression, Operator, LiquidExpression)
    /// `a or b and c`: `and` and `or` have no precedence; like Liquid, the chain is evaluated
    /// from the right, so this is `a or (b and c)`, and `a and b or c` is `a and (b or c)`.
    /// Kept flat so that a long chain costs no stack.
    case chain(LiquidCondition, [Step])
    case not(LiquidCondition)

    enum Operator: String, Sendable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case greater = ">"
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case contains
    }

    /// `and c` or `or c`, following the previous condition in a chain.
    struct Step: Sendable, Equatable {
        let isAnd: Bool
        let condition: LiquidCondition
    }
}
