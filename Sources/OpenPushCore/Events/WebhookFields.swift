/// The body of `POST /apps/{app_id}/webhooks` and of its `PATCH`: what an endpoint gets and
/// where. Every bad field is named in one `InvalidInput`; unknown fields are refused.
package struct WebhookFields: Sendable, Equatable {
    package static let maxDescriptionLength = 255
    package static let eventsProblem =
        "events must be a non-empty array of event types, or [\"*\"] for every type"
    package static let wildcardProblem = "events: \"*\" subscribes to every type and must be the only entry"

    package var url: String?
    /// Event type names, or `["*"]`.
    package var events: [String]?
    /// `.clear`: an explicit `null`.
    package var description: FieldChange<String>
    package var enabled: Bool?

    package init(url: String? = nil, events: [String]? = nil, description: FieldChange<String> = .keep,
                enabled: Bool? = nil) {
        self.url = url
        self.events = events
        self.description = description
        self.enabled = enabled
    }

    /// `url` and `events` are required; `description` optional (string or null).
    package static func parseCreate(_ body: JSONObject, allowPrivate: Bool) -> Result<WebhookFields, InvalidInput> {
        parse(body, allowPrivate: allowPrivate, creating: true)
    }

    /// Every field optional: only those given change; `enabled` may be set too.
    package static func parseUpdate(_ body: JSONObject, allowPrivate: Bool) -> Result<WebhookFields, InvalidInput> {
        parse(body, allowPrivate: allowPrivate, creating: false)
    }

    private static func parse(_ body: JSONObject, allowPrivate: Bool, creating: Bool) -> Result<WebhookFields, InvalidInput> {
        var reader = FieldReader(body)
        var fields = WebhookFields()
        if let url = reader.string("url", required: creating) {
            if let problem = WebhookURL.problem(url, allowPrivate: allowPrivate) {
                reader.problem(problem.message)
            } else {
                fields.url = url
            }
        } else if !creating, reader.has("url"), body["url"] == .null {
            reader.problem("url must not be null")
        }
        fields.events = events(&reader, required: creating)
        switch reader.value("description") {
        case nil: break
        case .null?: fields.description = .clear
        case .string(let text)?:
            if text.count > maxDescriptionLength {
                reader.problem("description must be \(maxDescriptionLength) characters or fewer")
            } else {
                fields.description = .set(text)
            }
        case let other?: reader.problem("description must be a string or null, got \(other.typeName)")
        }
        if creating {
            // Endpoints start enabled; `enabled` is a PATCH field.
            if reader.has("enabled") { _ = reader.value("enabled"); reader.problem("unknown field 'enabled'") }
        } else {
            fields.enabled = reader.bool("enabled")
            if reader.has("enabled"), body["enabled"] == .null { reader.problem("enabled must be a boolean, got null") }
        }
        reader.rejectUnknownFields()
        if !reader.problems.isEmpty { return .failure(InvalidInput(reader.problems)) }
        return .success(fields)
    }

    /// Known `EventType` names (no repeats kept), or exactly `["*"]`.
    static func events(_ reader: inout FieldReader, required: Bool) -> [String]? {
        switch reader.value("events") {
        case nil:
            if required { reader.problem("events is required") }
            return nil
        case .array(let items)? where !items.isEmpty:
            var names: [String] = []
            var bad = false
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item else {
                    reader.problem("events[\(index)] must be a string, got \(item.typeName)")
                    bad = true
                    continue
                }
                if name == EventType.wildcard {
                    if items.count != 1 { reader.problem(wildcardProblem); bad = true }
                } else if EventType(rawValue: name) == nil {
                    reader.problem("events[\(index)]: unknown event type '\(name)' (known: \(knownTypes))")
                    bad = true
                }
                if !names.contains(name) { names.append(name) }
            }
            return bad ? nil : names
        case .some:
            reader.problem(eventsProblem)
            return nil
        }
    }

    package static let knownTypes = EventType.allCases.map(\.rawValue).joined(separator: ", ")
}
