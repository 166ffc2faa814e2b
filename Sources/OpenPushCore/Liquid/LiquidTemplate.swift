/// A Liquid template, parsed once and rendered many times against a JSON object.
///
/// ```swift
/// let template = try LiquidTemplate(parsing: "Olá {{ first_name | default: \"there\" }}")
/// template.render(["first_name": "Ana"])  // "Olá Ana"
/// ```
///
/// Parsing is strict: an unknown tag or filter, an unclosed block or a malformed expression
/// is a `LiquidError`. Rendering is lax, as in Liquid, and never fails: a missing variable is
/// `nil` and renders empty, only `false` and `nil` are falsy, and filters given `nil` return
/// an empty value. A runaway template stops quietly at `maximumOutputBytes` of output or
/// `maximumLoopIterations` loop iterations.
public struct LiquidTemplate: Sendable {
    /// Output is cut here, on a character boundary.
    public static let maximumOutputBytes = 64 * 1024
    /// Iterations of all `for` loops in one render, nested ones included.
    public static let maximumLoopIterations = 10_000

    private let nodes: [LiquidNode]

    public init(parsing source: String) throws(LiquidError) {
        nodes = try LiquidParser.parse(source)
    }

    public func render(_ context: JSONObject) -> String {
        var renderer = LiquidRenderer(context: context)
        return renderer.render(nodes)
    }
}

extension LiquidTemplate {
    /// Why `source` would not parse, or `nil` when it would: for validating a request.
    public static func validate(_ source: String) -> LiquidError? {
        do {
            _ = try LiquidTemplate(parsing: source)
            return nil
        } catch {
            return error
        }
    }
}
