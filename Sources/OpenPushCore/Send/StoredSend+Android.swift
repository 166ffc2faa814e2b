/// The Android-only fields of a stored notification: the object `android` with `channel_id`,
/// `small_icon`, `large_icon`, `big_picture`, `accent_color` (`#RRGGBB`), `sound` and `group`,
/// each optional; absent when the send has none (sends stored before it decode as they were).
extension StoredSend {
    static func encodeAndroid(_ android: AndroidNotificationFields, into object: inout JSONObject) {
        var fields = JSONObject()
        fields.put("channel_id", android.channelID)
        fields.put("small_icon", android.smallIcon)
        fields.put("large_icon", android.largeIcon)
        fields.put("big_picture", android.bigPicture)
        fields.put("accent_color", android.accentColor)
        fields.put("sound", android.sound)
        fields.put("group", android.group)
        if !fields.isEmpty { object["android"] = .object(fields) }
    }

    static func decodeAndroid(_ fields: inout StoredFields) throws(StoredSendError) -> AndroidNotificationFields {
        guard let object = try fields.object("android") else { return AndroidNotificationFields() }
        var entry = StoredFields(object, path: "android.")
        let android = AndroidNotificationFields(
            channelID: try entry.string("channel_id"), smallIcon: try entry.string("small_icon"),
            largeIcon: try entry.string("large_icon"), bigPicture: try entry.string("big_picture"),
            accentColor: try entry.string("accent_color"), sound: try entry.string("sound"), group: try entry.string("group"))
        try entry.finish()
        return android
    }
}
