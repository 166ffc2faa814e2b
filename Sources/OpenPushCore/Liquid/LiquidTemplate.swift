/// A Liquid template, parsed once and rendered many times against a JSON object.
///
/// ```swift
/// let template = try LiquidTemplate(parsing: "Olá {{ first_name | default: \"there\" }}")
/// template.render(["first_name": "Ana"]).text  // "Olá Ana"
/// ```
///
/// Parsing is strict: an unknown tag or filter, an unclosed block or a malformed expression
/// is a `LiquidError`. Rendering is lax, as in Liquid: a missing variable is `nil` and renders
/// empty, only `false` and `nil` are falsy, and filters given `nil` return an empty value.
/// Output is cut at `maximumOutputBytes`. Each rendering has a `LiquidBudget` of steps and
/// bytes; a template that exhausts it stops, and its `LiquidRendering` says so.
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
package struct LiquidTemplate: Sendable {
    /// Output is cut here, on a character boundary.
    package static let maximumOutputBytes = 64 * 1024

    let nodes: [LiquidNode]

    package init(parsing source: String) throws(LiquidError) {
        nodes = try LiquidParser.parse(source)
    }

    package func render(_ context: JSONObject) -> LiquidRendering {
        var renderer = LiquidRenderer(context: context)
        return renderer.render(nodes)
    }
}

extension LiquidTemplate {
    /// Why `source` would not parse, or would exhaust its budget even without a recipient's
    /// data; `nil` when neither: for validating a request. Rendered once against an empty
    /// context, whose cost is what every recipient pays at least (a loop over a literal range,
    /// a literal string doubled), so a template refused here would fail for every recipient.
    package static func validate(_ source: String) -> LiquidError? {
        do {
            let template = try LiquidTemplate(parsing: source)
            return template.render([:]).exceededBudget ? .overBudget : nil
        } catch {
            return error
        }
    }
}
