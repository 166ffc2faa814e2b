/// The web fields of a notification body (`WebNotificationFields`), read beside the Apple and
/// Android ones.
extension NotificationSendParser {
    /// Each URL is checked as `url` is; `web_push_topic` must already be a valid `Topic`.
    static func readWeb(_ body: JSONObject, _ reader: inout FieldReader) -> WebNotificationFields {
        var fields = WebNotificationFields()
        fields.excludedBrowsers = WebNotificationFields.readExclusions(&reader)
        var urls: [String: String] = [:]
        for field in WebNotificationFields.urlFields {
            if let url = readURL(field, &reader) { urls[field] = url }
        }
        fields.icon = urls["chrome_web_icon"] ?? urls["firefox_icon"]
        fields.image = urls["chrome_web_image"]
        fields.badge = urls["chrome_web_badge"]
        // `url` itself was checked with the Apple fields.
        fields.url = urls["web_url"] ?? body["url"]?.stringValue.flatMap { isURL($0) ? $0 : nil }
        if let topic = reader.string("web_push_topic") {
            if WebPushTopic.isValid(topic) { fields.topic = topic } else { reader.problem(WebNotificationFields.Messages.topic) }
        }
        return fields
    }
}
