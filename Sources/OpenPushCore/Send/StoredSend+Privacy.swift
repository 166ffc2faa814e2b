/// The privacy fields of a stored notification: `privacy_text` (a language map) and `privacy`
/// (`"ids_only"`; absent means `full`).
extension StoredSend {
    static func encodePrivacy(_ send: NotificationSend, into object: inout JSONObject) {
        object.put("privacy_text", send.privacyText)
        if send.privacy != .full { object.put("privacy", send.privacy.rawValue) }
    }

    static func decodePrivacy(_ fields: inout StoredFields, into send: inout NotificationSend) throws(StoredSendError) {
        send.privacyText = try fields.stringMap("privacy_text")
        if let privacy = try fields.string("privacy") {
            guard let known = NotificationPrivacy(rawValue: privacy) else { throw StoredSendError("stored privacy '\(privacy)' is unknown") }
            send.privacy = known
        }
    }
}
