/// `apns_push_type_override`: OneSignal's `alert` and `background` must match what the content
/// makes the push; `voip`, `location`, `pushtotalk`, `complication` and `fileprovider` send it to
/// each device's token of that kind (`ExtraTokenKind`). Those need no `contents` (data-only is
/// normal for them), and refuse by name the fields that make no sense for their kind.
extension NotificationSendParser {
    /// What `apns_push_type_override` asked for.
    enum PushTypeOverride: Equatable {
        /// `alert` or `background`: checked against what the content makes the push.
        case matching(NotificationKind)
        /// To the devices' tokens of this kind.
        case extra(ExtraTokenKind)
    }

    package enum PushTypeMessages {
        package static let unknown = "apns_push_type_override must be one of: alert, background, "
            + ExtraTokenKind.allCases.map(\.rawValue).joined(separator: ", ")
        package static let containerIdentifier =
            #"apns_push_type_override "fileprovider" needs data["container-identifier"]: the container whose items changed"#

        /// A field the kind refuses, and why.
        package static func refused(_ field: String, _ kind: ExtraTokenKind) -> String {
            #"\#(field) cannot be sent with apns_push_type_override "\#(kind.rawValue)": \#(why(kind))"#
        }

        package static func priority(_ kind: ExtraTokenKind, _ wanted: Int) -> String {
            #"priority must be \#(wanted) with apns_push_type_override "\#(kind.rawValue)" (Apple's priority for it)"#
        }

        package static let pushToTalkTTL =
            #"ttl cannot be sent with apns_push_type_override "pushtotalk": push-to-talk pushes are tried once (apns-expiration 0)"#

        package static func fileProviderData(_ key: String) -> String {
            #"data.\#(key) cannot be sent with apns_push_type_override "fileprovider": its payload holds container-identifier and domain only"#
        }

        package static func voipTooLarge(_ bytes: Int) -> String {
            "the VoIP payload is \(bytes) bytes: at most \(NotificationPayload.maximumVoIPPayloadBytes) bytes"
        }

        static func why(_ kind: ExtraTokenKind) -> String {
            switch kind {
            case .voip: "PushKit hands the payload to the app, which shows nothing of it by itself"
            case .location: "a location push wakes the Location Push Service Extension and shows nothing"
            case .pushToTalk: "the PushToTalk framework shows the speaker from the payload the app reads"
            case .complication: "a complication push wakes the watch app to refresh its complications and shows nothing"
            case .fileProvider: "a file provider push tells the extension what changed and shows nothing"
            }
        }
    }

    /// Fields only an alert (or a background wake) has a use for: every extra kind refuses them.
    static let alertOnlyFields = ["ios_sound", "ios_badgeType", "ios_badgeCount", "ios_category", "thread_id",
                                  "content_available", "mutable_content", "target_content_identifier",
                                  "ios_interruption_level", "ios_relevance_score", "url", "app_url", "ios_attachments",
                                  "buttons", "apns_alert", "summary_arg", "summary_arg_count", "privacy_text", "privacy",
                                  "quiet_hours", "dedupe_key", "event_at", "stale_after_seconds"]
    /// The texts: a VoIP push carries them for the app's own call screen; the other kinds show nothing.
    static let textFields = ["headings", "subtitle", "contents"]
    /// The keys a file provider payload holds (Apple's `container-identifier`, and the `domain`
    /// of a replicated extension's domain).
    static let fileProviderKeys: Set<String> = ["container-identifier", "domain"]

    static func readPushTypeOverride(_ reader: inout FieldReader) -> PushTypeOverride? {
        guard let type = reader.string("apns_push_type_override") else { return nil }
        if let extra = ExtraTokenKind(rawValue: type) { return .extra(extra) }
        switch type {
        case "alert": return .matching(.alert)
        case "background": return .matching(.background)
        default:
            reader.problem(PushTypeMessages.unknown)
            return nil
        }
    }

    /// The problems of a body sent to `kind`'s tokens, in this order: refused fields, a
    /// priority Apple fixes for the kind, a file provider's payload, a VoIP payload's size
    /// (built as the push would be, with the texts as written: Liquid may make them longer per
    /// device, and a push then too large is recorded `PayloadTooLarge`).
    static func checkExtra(_ kind: ExtraTokenKind, body: JSONObject, data: JSONObject?, priority: Int?, ttl: Int?,
                           headings: [String: String]?, subtitle: [String: String]?, contents: [String: String]?,
                           _ reader: inout FieldReader) {
        let refused = kind == .voip ? alertOnlyFields : textFields + alertOnlyFields
        for field in refused where body.isPresent(field) { reader.problem(PushTypeMessages.refused(field, kind)) }
        let fixed: Int? = switch kind {
        case .voip, .location, .pushToTalk: 10
        case .fileProvider: 5
        case .complication: nil
        }
        if let fixed, let priority, priority != fixed { reader.problem(PushTypeMessages.priority(kind, fixed)) }
        if kind == .pushToTalk, let ttl, ttl != 0 { reader.problem(PushTypeMessages.pushToTalkTTL) }
        if kind == .fileProvider {
            guard case .string(let container)? = data?["container-identifier"], !container.isEmpty else {
                reader.problem(PushTypeMessages.containerIdentifier)
                return
            }
            for key in (data ?? [:]).keys where !fileProviderKeys.contains(key) {
                reader.problem(PushTypeMessages.fileProviderData(key))
            }
        }
        if kind == .voip {
            let send = NotificationSend(kind: .voip, data: data)
            let payload = NotificationPayload.extraPayload(send, title: longest(headings), subtitle: longest(subtitle),
                                                           body: longest(contents))
            let bytes = JSONValue.object(payload).serializedBytes.count
            if bytes > NotificationPayload.maximumVoIPPayloadBytes { reader.problem(PushTypeMessages.voipTooLarge(bytes)) }
        }
    }

    /// The longest of a language map's texts: the largest payload a device can get from it.
    private static func longest(_ texts: [String: String]?) -> String? {
        texts?.values.max { $0.utf8.count < $1.utf8.count }
    }
}
