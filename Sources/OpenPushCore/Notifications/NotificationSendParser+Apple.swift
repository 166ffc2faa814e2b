/// OneSignal's Apple fields of `POST /notifications` that go beyond plain APNs keys: the tap URL,
/// attachments, action buttons, `apns_alert`, the thread summary and the body's idempotency key
/// (`apns_push_type_override`: `NotificationSendParser+PushTypes`). Each reader checks its field and records problems.
extension NotificationSendParser {
    /// OneSignal shows at most three buttons on a mobile notification.
    package static let maximumButtons = 3
    package static let maximumURLBytes = 2048

    /// Apple's `aps.alert` keys `apns_alert` may set; the texts themselves come from `headings`,
    /// `subtitle` and `contents`.
    package static let apnsAlertStringKeys = ["title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key", "launch-image",
                                             "summary-arg"]
    package static let apnsAlertArgumentKeys = ["title-loc-args", "subtitle-loc-args", "loc-args"]
    static let apnsAlertTextKeys = ["title": "headings", "subtitle": "subtitle", "body": "contents"]
    /// Keys that make an alert visible without `contents`.
    static let apnsAlertVisibleKeys = ["title-loc-key", "subtitle-loc-key", "loc-key"]

    /// The fields a background notification refuses: they only mean something on a visible one.
    static let visibleOnlyFields = ["url", "app_url", "ios_attachments", "buttons", "apns_alert", "summary_arg",
                                    "summary_arg_count", "privacy_text"]

    package enum AppleMessages {
        package static let url = "must be a URL with a scheme (https://…, or your app's own scheme), without spaces, at most 2048 bytes"
        package static let attachments = "ios_attachments must be an object of media id to a URL or a bundled file name"
        package static let buttonsArray = "buttons must be an array of objects with id and text"
        package static let tooManyButtons = "buttons: at most \(maximumButtons) buttons"
        package static let apnsAlert = "apns_alert must be an object"
        package static let idempotencyKeyUUID = "idempotency_key must be a UUID"
        package static let externalIDUUID = "external_id must be a UUID"
        package static let twoIdempotencyKeys = "external_id and idempotency_key must be the same key when both are given"
        package static let dataHoldsOSData =
            "data cannot contain the key 'os_data' with url, app_url, ios_attachments or buttons: OpenPush writes it"
        package static let backgroundShowsNothing =
            "a background notification (content_available without contents) shows nothing: remove "

        package static func pushTypeMismatch(_ type: String, _ kind: NotificationKind) -> String {
            switch kind {
            case .alert: #"apns_push_type_override "\#(type)" does not fit a notification with visible content, which is sent as "alert""#
            case .background:
                #"apns_push_type_override "\#(type)" does not fit a notification without visible content, which is sent as "background""#
            // An extra kind is never checked against the content (`PushTypeOverride.extra`).
            case .widgets, .voip, .location, .pushToTalk, .complication, .fileProvider:
                #"apns_push_type_override cannot be combined with push_type "widgets""#
            }
        }
    }

    /// `app_url` wins over `url` for apps (OneSignal: `url` is for every platform, `app_url`
    /// for apps only, `web_url` for browsers); both are checked.
    static func readLaunchURL(_ reader: inout FieldReader) -> String? {
        let url = readURL("url", &reader)
        let appURL = readURL("app_url", &reader)
        return appURL ?? url
    }

    static func readURL(_ field: String, _ reader: inout FieldReader) -> String? {
        guard let text = reader.string(field) else { return nil }
        guard isURL(text) else {
            reader.problem("\(field) \(AppleMessages.url)")
            return nil
        }
        return text
    }

    /// A scheme (`letter (letter | digit | + - .)* :`), something after it, no whitespace.
    static func isURL(_ text: String) -> Bool {
        guard text.utf8.count <= maximumURLBytes, !text.contains(where: \.isWhitespace),
              let colon = text.firstIndex(of: ":"), text.index(after: colon) != text.endIndex else { return false }
        let scheme = Array(text[..<colon].utf8)
        guard let first = scheme.first, isASCIILetter(first) else { return false }
        return scheme.allSatisfy { isASCIILetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.".utf8.contains($0) }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func readAttachments(_ reader: inout FieldReader) -> [NotificationAttachment]? {
        guard let value = reader.value("ios_attachments"), value != .null else { return nil }
        guard case .object(let entries) = value, !entries.isEmpty else {
            reader.problem(AppleMessages.attachments)
            return nil
        }
        var attachments: [NotificationAttachment] = []
        for (id, entry) in entries {
            guard !id.allSatisfy(\.isWhitespace) else {
                reader.problem("ios_attachments: a media id must not be blank")
                return nil
            }
            guard case .string(let location) = entry, !location.isEmpty,
                  !location.contains(where: \.isWhitespace), location.utf8.count <= maximumURLBytes else {
                reader.problem("ios_attachments.\(id) must be a URL or a bundled file name, without spaces")
                return nil
            }
            attachments.append(NotificationAttachment(id: id, url: location))
        }
        return attachments
    }

    static func readButtons(_ reader: inout FieldReader) -> [NotificationButton]? {
        guard let value = reader.value("buttons"), value != .null else { return nil }
        guard case .array(let items) = value, !items.isEmpty else {
            reader.problem(AppleMessages.buttonsArray)
            return nil
        }
        guard items.count <= maximumButtons else {
            reader.problem(AppleMessages.tooManyButtons)
            return nil
        }
        var buttons: [NotificationButton] = []
        var valid = true
        for (index, item) in items.enumerated() {
            let label = "buttons[\(index)]"
            guard case .object(let object) = item else {
                reader.problem("\(label) must be an object, got \(item.typeName)")
                valid = false
                continue
            }
            var fields = FieldReader(object)
            let id = nonBlank(fields.string("id", required: true, maxLength: 64))
            let text = nonBlank(fields.string("text", required: true, maxLength: 64))
            let icon = nonBlank(fields.string("icon"))
            fields.rejectUnknownFields()
            for problem in fields.problems { reader.problem("\(label).\(problem)") }
            guard fields.problems.isEmpty, let id, let text else {
                valid = false
                continue
            }
            guard !buttons.contains(where: { $0.id == id }) else {
                reader.problem("\(label).id '\(id)' is used by another button")
                valid = false
                continue
            }
            buttons.append(NotificationButton(id: id, text: text, icon: icon))
        }
        return valid ? buttons : nil
    }

    /// Apple's own alert keys, each with its type: strings, arrays of strings for the `-args`,
    /// an integer `summary-arg-count`.
    static func readAPNSAlert(_ reader: inout FieldReader) -> JSONObject? {
        guard let value = reader.value("apns_alert"), value != .null else { return nil }
        guard case .object(let object) = value else {
            reader.problem(AppleMessages.apnsAlert)
            return nil
        }
        var valid = true
        for (key, entry) in object {
            let label = "apns_alert.\(key)"
            if let field = apnsAlertTextKeys[key] {
                reader.problem("\(label): give this text in \(field)")
                valid = false
            } else if apnsAlertStringKeys.contains(key) {
                guard case .string = entry else {
                    reader.problem("\(label) must be a string, got \(entry.typeName)")
                    valid = false
                    continue
                }
            } else if apnsAlertArgumentKeys.contains(key) {
                guard case .array(let items) = entry, items.allStrings != nil else {
                    reader.problem("\(label) must be an array of strings")
                    valid = false
                    continue
                }
            } else if key == "summary-arg-count" {
                guard let count = entry.intValue, count >= 1 else {
                    reader.problem("\(label) must be an integer of 1 or more")
                    valid = false
                    continue
                }
            } else {
                let allowed = (apnsAlertStringKeys + apnsAlertArgumentKeys + ["summary-arg-count"]).joined(separator: ", ")
                reader.problem("\(label) is not an alert key OpenPush sends (allowed: \(allowed))")
                valid = false
            }
        }
        return valid ? object : nil
    }

    /// `idempotency_key`, or `external_id` (its older name): UUID text, lower-cased.
    static func readIdempotencyKey(_ reader: inout FieldReader) -> String? {
        let key = readUUID("idempotency_key", AppleMessages.idempotencyKeyUUID, &reader)
        let external = readUUID("external_id", AppleMessages.externalIDUUID, &reader)
        if let key, let external, key != external {
            reader.problem(AppleMessages.twoIdempotencyKeys)
            return nil
        }
        return key ?? external
    }

    private static func readUUID(_ field: String, _ message: String, _ reader: inout FieldReader) -> String? {
        guard let value = reader.value(field), value != .null else { return nil }
        guard case .string(let text) = value, let uuid = UUIDText.canonical(text) else {
            reader.problem(message)
            return nil
        }
        return uuid
    }
}
