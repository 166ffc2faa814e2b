import OpenPushCore
import OpenPushDelivery

extension TemplateRecord {
    /// OneSignal's channel for every OpenPush template.
    static let channel = "push"

    /// A list entry, as OneSignal's "view templates" shows it: no content.
    var summary: JSONValue {
        [
            "id": .string(id), "name": .string(name), "channel": .string(Self.channel),
            "created_at": .string(Timestamp.iso8601(createdAt)), "updated_at": .string(Timestamp.iso8601(updatedAt)),
        ]
    }

    /// OneSignal's `TemplateResource`: the summary plus `content`, holding every template field
    /// (`null` when the template has none) and `isIos: true`, the one platform it is for.
    var resource: JSONValue {
        var content: JSONObject = ["isIos": true]
        for field in TemplateFields.contentFields { content[field] = self.content[field] ?? .null }
        var object = summary.objectValue ?? [:]
        object["content"] = .object(content)
        return .object(object)
    }
}
