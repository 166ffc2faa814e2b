/// The Android fields of a notification body (`AndroidNotificationFields`), read beside the
/// Apple ones: what only Android has is kept, what both share is the send's own field.
extension NotificationSendParser {
    /// `isAndroid: false` excludes Android devices: then what only an FCM message would refuse
    /// (e.g. a `data` key FCM reserves) is no reason to refuse an Apple send.
    static func readAndroid(_ body: JSONObject, _ reader: inout FieldReader) -> AndroidNotificationFields {
        for field in OneSignalNotificationFields.honouredAndroid { _ = reader.value(field) }
        do {
            let parsed = try AndroidNotificationFields.parse(body)
            return AndroidNotificationFields(
                channelID: parsed.channelID, smallIcon: parsed.smallIcon, largeIcon: parsed.largeIcon,
                bigPicture: parsed.bigPicture, accentColor: parsed.accentColor, sound: parsed.sound, group: parsed.group)
        } catch {
            guard body["isAndroid"] != .bool(false) else { return AndroidNotificationFields() }
            // The shared fields were checked above with the same words: each problem once.
            for message in error.messages where !reader.problems.contains(message) { reader.problem(message) }
            return AndroidNotificationFields()
        }
    }
}
