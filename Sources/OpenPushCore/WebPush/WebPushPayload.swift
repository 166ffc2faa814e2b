/// The plaintext of a browser push (before encryption): the JSON the service worker reads,
/// `{"title", "body", "icon", "image", "badge", "url", "tag", "data", "openpush":
/// {"notification_id", "subscription_id"}}`, keys with no value left out. Built once for the
/// recipients alike and finished per subscription (`body(subscriptionID:)`): its id is the last
/// value, so each body is the shared bytes, the id and `}}`.
package struct WebPushPayload: Sendable {
    /// Every byte up to the subscription id's value; nil when the JSON did not end as expected
    /// (then each body is written in full).
    private let prefix: [UInt8]?
    private let object: JSONObject

    package init(title: String? = nil, body: String? = nil, icon: String? = nil, image: String? = nil, badge: String? = nil,
                 url: String? = nil, tag: String? = nil, data: JSONObject? = nil, notificationID: String) {
        var object = JSONObject()
        object.put("title", title)
        object.put("body", body)
        object.put("icon", icon)
        object.put("image", image)
        object.put("badge", badge)
        object.put("url", url)
        object.put("tag", tag)
        if let data, !data.isEmpty { object["data"] = .object(data) }
        object["openpush"] = .object(["notification_id": .string(notificationID), "subscription_id": .string("")])
        self.object = object
        let bytes = JSONValue.object(object).serializedBytes
        let ending = Array("\"\"}}".utf8)
        prefix = bytes.count > ending.count + 1 && Array(bytes.suffix(ending.count)) == ending
            ? Array(bytes.dropLast(ending.count)) : nil
    }

    /// The plaintext for one subscription.
    package func body(subscriptionID: String) -> [UInt8] {
        guard var output = prefix else {
            var full = object
            if case .object(var block)? = full["openpush"] {
                block["subscription_id"] = .string(subscriptionID)
                full["openpush"] = .object(block)
            }
            return JSONValue.object(full).serializedBytes
        }
        JSONValue.writeString(subscriptionID, to: &output)
        output.append(contentsOf: "}}".utf8)
        return output
    }
}
