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
/// `maximumLoopIterations` loop iterations (or 4 MiB built by filters and captures).
///
/// Supported, with Shopify Liquid's semantics:
/// - Output `{{ expr | filter: arg, name: arg }}`; lookups `a.b`, `a["k"]`, `a[0]`, `a[-1]`;
///   `size`, `first`, `last` on arrays and strings; literals `'s'`, `"s"`, `1`, `1.5`, `true`,
///   `false`, `nil`/`null`, `empty`, `blank`, `(1..n)`; whitespace control `{{- -}}`, `{%- -%}`.
/// - Tags `if`/`elsif`/`else`, `unless`, `case`/`when` (`,` and `or`), `for` (`limit:`,
///   `offset:`, `reversed`, `else`, `forloop.*`, `break`, `continue`), `assign`, `capture`,
///   `echo`, `raw`, `comment`, `{% # inline comment %}`.
/// - Conditions `==`, `!=`, `<>`, `<`, `>`, `<=`, `>=`, `contains`, `and`/`or` grouped from
///   the right without precedence.
/// - The filters of `LiquidFilter`.
///
/// Values render as in Liquid: `nil` empty, integers without a decimal point, doubles with one
/// (`3.0`), arrays as their elements concatenated; objects render as compact JSON.
/// Not supported: `include`/`render`, `cycle`, `tablerow`, `increment`, `liquid`, `date` and
/// the filters not listed, `offset: continue`, and assigning a range to a variable.
public struct LiquidTemplate: Sendable {
    /// Output is cut here, on a character boundary.
    public static let maximumOutputBytes = 64 * 1024
    /// Iterations of all `for` loops in one render, nested ones included.
    public static let maximumLoopIterations = 10_000

    let nodes: [LiquidNode]

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
