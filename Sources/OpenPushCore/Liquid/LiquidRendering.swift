/// What rendering a template for one recipient gave: the text, or the news that the template
/// ran out of its budget (`LiquidBudget`), in which case the text is only what was written
/// before it did and must not be sent.
package struct LiquidRendering: Sendable, Equatable {
    package var text: String
    package var exceededBudget: Bool
    /// What the rendering spent: steps and bytes.
    package var spent: LiquidBudget
}
