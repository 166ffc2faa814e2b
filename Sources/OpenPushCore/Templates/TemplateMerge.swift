/// How `template_id` on `POST /notifications` applies a template: at the JSON level, before the
/// body is validated, so the stored request (and the view) shows what was sent.
package enum TemplateMerge {
    package static let field = "template_id"

    package static func unknown(_ id: String) -> InvalidInput {
        InvalidInput("template_id '\(id)' not found: no template of this app has this id")
    }

    /// The body's `template_id`: nil when absent or `null`; anything but a non-blank string is refused.
    package static func templateID(in body: JSONObject) -> Result<String?, InvalidInput> {
        switch body[field] {
        case nil, .null?:
            return .success(nil)
        case .string(let id)? where !id.allSatisfy(\.isWhitespace):
            return .success(id)
        case .string?:
            return .failure(InvalidInput("template_id must not be blank"))
        case let other?:
            return .failure(InvalidInput("template_id must be a string, got \(other.typeName)"))
        }
    }

    /// `body` with the template's `name` and content fields filled in where the request has none
    /// (absent or `null`): fields in the request win. `template_id` stays, naming the template.
    package static func merged(_ body: JSONObject, name: String, content: JSONObject) -> JSONObject {
        var merged = body
        let filled: [(String, JSONValue)] = [("name", .string(name))] + content.map { ($0.key, $0.value) }
        for (key, value) in filled where !body.isPresent(key) {
            merged[key] = value
        }
        return merged
    }
}
