/// Picks and renders the text of a push for one recipient: the subscription's language when
/// the map has it, else English; Liquid rendered with the recipient's context; cut to the
/// platform's limit (512 characters for a title, 2048 for a body). A text whose Liquid exhausts
/// its budget (`LiquidBudget`) throws: its recipient is not sent to.
package enum LocalizedText {
    package static let titleLimit = 512
    package static let bodyLimit = 2048

    package static func render(_ map: [String: String]?, language: String?, context: JSONObject, limit: Int)
        throws(LiquidBudget.Exceeded) -> String?
    {
        try LocalizedTemplates(map).render(language: language, context: context, limit: limit)
    }

    /// The Liquid context of a recipient: its tags at the top level, then `subscription` and
    /// `user`, and — for a notification sent with `custom_data` — `message.custom_data`, which a
    /// tag of the same name cannot hide.
    package static func context(tags: [String: String], subscription: JSONObject, user: JSONObject,
                               customData: JSONObject? = nil) -> JSONObject {
        var context = JSONObject(tags.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        context["subscription"] = .object(subscription)
        context["user"] = .object(user)
        if let customData { context["message"] = ["custom_data": .object(customData)] }
        return context
    }
}

/// A language map parsed once, rendered for many recipients (a fan-out renders the same
/// templates thousands of times).
package struct LocalizedTemplates: Sendable {
    private let templates: [String: LiquidTemplate]
    private let sources: [String: String]
    /// False when every text is plain (no `{{` or `{%`): it renders as written whatever the
    /// context, so a fan-out need not build each recipient's Liquid context.
    package let usesLiquid: Bool
    /// The context names any of the texts can read (`LiquidTemplate.variables`); nil when one
    /// computes the name it reads.
    package let variables: Set<String>?

    package init(_ map: [String: String]?) {
        sources = map ?? [:]
        templates = sources.compactMapValues { try? LiquidTemplate(parsing: $0) }
        usesLiquid = sources.values.contains { $0.contains("{{") || $0.contains("{%") }
        variables = LiquidTemplate.variables(of: templates.values.map(\.variables))
    }

    package func render(language: String?, context: JSONObject, limit: Int) throws(LiquidBudget.Exceeded) -> String? {
        guard let chosen = language.flatMap({ sources[$0] != nil ? $0 : nil }) ?? (sources["en"] != nil ? "en" : nil) else {
            return nil
        }
        let rendered: String
        if let template = templates[chosen] {
            let rendering = template.render(context)
            guard !rendering.exceededBudget else { throw LiquidBudget.Exceeded() }
            rendered = rendering.text
        } else {
            rendered = sources[chosen]!
        }
        return rendered.count > limit ? String(rendered.prefix(limit)) : rendered
    }
}
