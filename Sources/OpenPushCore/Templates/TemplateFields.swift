/// The content of a OneSignal message template, from a `POST /templates` or `PATCH /templates/{id}`
/// body: its `name` and the push fields a `POST /notifications` with `template_id` fills in.
/// Each field is checked as `NotificationSendParser` checks it (texts need an `en` entry and must
/// parse as Liquid) and kept as the client sent it, so the send that uses the template parses
/// exactly what a request carrying those fields itself would. Every problem is in one `InvalidInput`.
package struct TemplateFields: Sendable, Equatable {
    /// The push fields a template holds, in the order a template shows them.
    package static let contentFields = ["headings", "subtitle", "contents", "data", "ios_sound", "ios_category",
                                       "ios_attachments", "buttons"]
    package static let maximumNameLength = 128
    /// OneSignal's template fields for email and SMS that its notification body does not have,
    /// and `isAndroid` (a send's platform switch, not content): accepted and ignored, like the
    /// other channels' notification fields.
    package static let otherChannels: Set<String> = ["email_bcc", "dynamic_content", "isAndroid"]

    package enum Messages {
        package static let nameRemoved = "name cannot be null: a template keeps its name"
        package static let contentsRemoved = "contents cannot be null: a template needs contents"
        package static func pushOnly(_ field: String) -> String {
            "\(field) must be false: OpenPush templates are push templates"
        }
    }

    /// The new name; nil in an update that leaves it alone.
    package var name: String?
    /// The content fields given, exactly as sent.
    package var content: JSONObject
    /// Content fields an update removes (sent as `null`).
    package var removed: [String]
    /// Other-channel fields the body carried, accepted and ignored, sorted.
    package var ignored: [String]

    package init(name: String?, content: JSONObject = [:], removed: [String] = [], ignored: [String] = []) {
        self.name = name
        self.content = content
        self.removed = removed
        self.ignored = ignored
    }

    /// `POST /templates`: `name` and `contents` are required. `app_id` is read (a known field)
    /// but checked by the route.
    package static func parseCreate(_ body: JSONObject) -> Result<TemplateFields, InvalidInput> {
        parse(body, creating: true)
    }

    /// `PATCH /templates/{id}`: every field is optional; `null` removes an optional field.
    package static func parseUpdate(_ body: JSONObject) -> Result<TemplateFields, InvalidInput> {
        parse(body, creating: false)
    }

    private static func parse(_ body: JSONObject, creating: Bool) -> Result<TemplateFields, InvalidInput> {
        var reader = FieldReader(body)
        var fields = TemplateFields(name: nil)
        _ = reader.value("app_id")
        if !creating, body["name"] == .null {
            _ = reader.value("name")
            reader.problem(Messages.nameRemoved)
        } else {
            // A blank name is refused in an update too.
            fields.name = reader.string("name", required: creating || body["name"] != nil, maxLength: maximumNameLength)
        }
        for field in contentFields {
            if !creating, body[field] == .null {
                _ = reader.value(field)
                if field == "contents" { reader.problem(Messages.contentsRemoved) } else { fields.removed.append(field) }
                continue
            }
            let before = reader.problems.count
            read(field, required: creating && field == "contents", &reader)
            if reader.problems.count == before, let value = body[field], value != .null { fields.content[field] = value }
        }
        for flag in ["isEmail", "isSMS"] where reader.bool(flag) == true { reader.problem(Messages.pushOnly(flag)) }
        fields.ignored = body.keys.filter {
            otherChannels.contains($0) || OneSignalNotificationFields.otherChannels.contains($0)
                || OneSignalNotificationFields.honouredAndroid.contains($0) || OneSignalNotificationFields.honouredWeb.contains($0)
        }
            .sorted()
        for field in fields.ignored { _ = reader.value(field) }
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty else { return .failure(InvalidInput(reader.problems)) }
        return .success(fields)
    }

    /// One content field, checked by the same rules as the notification body's field.
    private static func read(_ field: String, required: Bool, _ reader: inout FieldReader) {
        switch field {
        case "headings", "subtitle", "contents":
            _ = LiveActivitySendParser.languageMap(field, required: required, &reader)
        case "data":
            _ = NotificationSendParser.readData(&reader)
        case "ios_attachments":
            _ = reader.stringMap(field)
        case "buttons":
            readButtons(&reader)
        default:
            _ = reader.string(field)
        }
    }

    /// OneSignal's action buttons: an array of objects of strings, each with an `id` and a `text`
    /// (and optionally an `icon`).
    static func readButtons(_ reader: inout FieldReader) {
        guard let value = reader.value("buttons"), value != .null else { return }
        guard case .array(let buttons) = value else {
            reader.problem("buttons must be an array of objects, got \(value.typeName)")
            return
        }
        for (index, item) in buttons.enumerated() {
            guard case .object(let button) = item else {
                reader.problem("buttons[\(index)] must be an object, got \(item.typeName)")
                continue
            }
            for (key, entry) in button where entry.stringValue == nil {
                reader.problem("buttons[\(index)].\(key) must be a string, got \(entry.typeName)")
            }
            for key in ["id", "text"] where button[key] == nil || button[key]?.stringValue?.allSatisfy(\.isWhitespace) == true {
                reader.problem("buttons[\(index)].\(key) is required")
            }
        }
    }
}
