/// The pushes to a device's extra tokens (`apns_push_type_override` `voip`, `location`,
/// `pushtotalk`, `complication`, `fileprovider`): Apple's topic per kind, and a payload that is
/// the app's own (`data`), never `aps` keys a system UI would read.
extension NotificationPayload {
    /// Apple lets a VoIP payload be larger than every other push's.
    package static let maximumVoIPPayloadBytes = 5120

    /// The largest body a push of `kind` may have.
    package static func maximumPayloadBytes(_ kind: NotificationKind) -> Int {
        kind == .voip ? maximumVoIPPayloadBytes : APNSRequest.maxPayloadBytes
    }

    /// `<bundle id><suffix>`; a complication's base is the watch app's bundle id when the app
    /// has one (the token is the watch app's), whatever the device's platform.
    static func extraTopic(_ kind: ExtraTokenKind, _ input: NotificationPushInput) -> String {
        let base = if kind == .complication, let watch = input.watchBundleID, !watch.isEmpty { watch } else { input.bundleID }
        return base + kind.topicSuffix
    }

    /// `data`'s keys at the top level (`{}` without any: a location push asks the extension to
    /// answer with no more). A VoIP push also carries its texts, when given, in `aps.alert`, for
    /// the app's own call screen: PushKit hands the whole payload to the app, which shows it.
    package static func extraPayload(_ send: NotificationSend, title: String?, subtitle: String?, body: String?) -> JSONObject {
        var payload: JSONObject = [:]
        if send.kind == .voip {
            var alert: JSONObject = [:]
            if let title = visible(title) { alert["title"] = .string(title) }
            if let subtitle = visible(subtitle) { alert["subtitle"] = .string(subtitle) }
            if let body = visible(body) { alert["body"] = .string(body) }
            if !alert.isEmpty { payload["aps"] = ["alert": .object(alert)] }
        }
        for (key, value) in send.data ?? [:] { payload[key] = value }
        return payload
    }
}
