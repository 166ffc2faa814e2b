/// The web fields of a stored notification: the object `web` with `icon`, `image`, `badge`,
/// `url`, `topic` and `excluded_browsers` (`WebPushBrowser` names, sorted), each optional;
/// absent when the send has none (sends stored before it decode as they were).
extension StoredSend {
    static func encodeWeb(_ web: WebNotificationFields, into object: inout JSONObject) {
        var fields = JSONObject()
        fields.put("icon", web.icon)
        fields.put("image", web.image)
        fields.put("badge", web.badge)
        fields.put("url", web.url)
        fields.put("topic", web.topic)
        if !web.excludedBrowsers.isEmpty {
            fields["excluded_browsers"] = .array(web.excludedBrowsers.map(\.rawValue).sorted().map(JSONValue.string))
        }
        if !fields.isEmpty { object["web"] = .object(fields) }
    }

    static func decodeWeb(_ fields: inout StoredFields) throws(StoredSendError) -> WebNotificationFields {
        guard let object = try fields.object("web") else { return WebNotificationFields() }
        var entry = StoredFields(object, path: "web.")
        var web = WebNotificationFields(
            icon: try entry.string("icon"), image: try entry.string("image"), badge: try entry.string("badge"),
            url: try entry.string("url"), topic: try entry.string("topic"))
        for name in try entry.array("excluded_browsers") ?? [] {
            guard let text = name.stringValue, let browser = WebPushBrowser(rawValue: text) else {
                throw StoredSendError("stored web browser '\(name)' is unknown")
            }
            web.excludedBrowsers.insert(browser)
        }
        try entry.finish()
        return web
    }
}
