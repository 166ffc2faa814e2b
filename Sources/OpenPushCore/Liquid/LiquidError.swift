/// Why a template could not be parsed. The message is short and has no position, so that a
/// route can prefix it with the field it came from: `headings.en: unclosed tag 'if'`.
///
/// Parsing produces this error, and `LiquidTemplate.validate` for a template over budget.
package struct LiquidError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

extension LiquidError {
    static func unclosedTag(_ name: String) -> LiquidError { LiquidError("unclosed tag '\(name)'") }
    static func unknownTag(_ name: String) -> LiquidError { LiquidError("unknown tag '\(name)'") }
    static func unknownFilter(_ name: String) -> LiquidError { LiquidError("unknown filter '\(name)'") }
    static func unexpected(_ name: String) -> LiquidError { LiquidError("unexpected '\(name)'") }
    static func orphanEnd(_ end: String, opener: String) -> LiquidError {
        LiquidError("'\(end)' without '\(opener)'")
    }
    static let unterminatedOutput = LiquidError("unterminated output '{{'")
    static let unterminatedTag = LiquidError("unterminated tag '{%'")
    static let emptyTag = LiquidError("empty tag '{% %}'")
    /// `LiquidTemplate.validate`: the template's cost, seen without a recipient, is over its budget.
    package static let overBudget = LiquidError(
        "template exceeds the rendering budget of \(LiquidBudget.maximumSteps) steps and \(LiquidBudget.maximumBytes / 1024 / 1024) MiB per text")
}
