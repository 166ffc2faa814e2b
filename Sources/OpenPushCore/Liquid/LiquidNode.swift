/// One piece of a parsed template.
indirect enum LiquidNode: Sendable, Equatable {
    case text(String)
    case output(LiquidFilteredExpression)
    /// `if`/`elsif`/`else` and `unless` (whose first condition is negated).
    case conditional(branches: [Branch], otherwise: [LiquidNode]?)
    /// Every `when` whose values match renders; `else` renders when none did.
    case switchCase(subject: LiquidExpression, whens: [When], otherwise: [LiquidNode]?)
    case loop(Loop)
    case assign(name: String, value: LiquidFilteredExpression)
    case capture(name: String, body: [LiquidNode])
    case breakLoop
    case continueLoop

    struct Branch: Sendable, Equatable {
        let condition: LiquidCondition
        let body: [LiquidNode]
    }

    struct When: Sendable, Equatable {
        let values: [LiquidExpression]
        let body: [LiquidNode]
    }

    struct Loop: Sendable, Equatable {
        let variable: String
        let collection: LiquidExpression
        let limit: LiquidExpression?
        let offset: LiquidExpression?
        let reversed: Bool
        let body: [LiquidNode]
        let otherwise: [LiquidNode]?
    }
}
