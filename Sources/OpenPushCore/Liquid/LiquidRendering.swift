/// What rendering a template for one recipient gave: the text, or the news that the template
/// ran out of its budget (`LiquidBudget`), in which case the text is only what was written
/// before it did and must not be sent.
public struct LiquidRendering: Sendable, Equatable {
    public var text: String
    public var exceededBudget: Bool
    /// What the rendering spent: steps and bytes.
    public var spent: LiquidBudget
}
