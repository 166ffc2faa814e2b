/// `privacy_text` and `privacy` of `POST /notifications` (issue 13, "Privacy: ids-only pushes"
/// and "Never a blank notification").
extension NotificationSendParser {
    package enum PrivacyMessages {
        package static let privacyTextType = "privacy_text must be a string or an object of strings, got "
        package static let privacyTextBlank = "privacy_text must not be blank"
        package static let privacyTextRequired = #"privacy_text is required when privacy is "ids_only""#
    }

    /// `privacy_text`: a language map like `contents` (an `"en"` entry that is not blank; Liquid
    /// allowed and checked now), or a plain string, which is the `"en"` entry. `privacy`:
    /// `"full"` (the default) or `"ids_only"`, which requires `privacy_text`.
    static func readPrivacy(_ reader: inout FieldReader) -> (text: [String: String]?, privacy: NotificationPrivacy) {
        let text: [String: String]?
        switch reader.object["privacy_text"] {
        case nil, .null?:
            _ = reader.value("privacy_text")
            text = nil
        case .string(let plain)?:
            _ = reader.value("privacy_text")
            if plain.allSatisfy(\.isWhitespace) {
                reader.problem(PrivacyMessages.privacyTextBlank)
                text = nil
            } else if let error = LiquidTemplate.validate(plain) {
                reader.problem("privacy_text: \(error.message)")
                text = nil
            } else {
                text = ["en": plain]
            }
        case .object?:
            text = LiveActivitySendParser.languageMap("privacy_text", required: false, &reader)
        case let other?:
            _ = reader.value("privacy_text")
            reader.problem(PrivacyMessages.privacyTextType + other.typeName)
            text = nil
        }
        let privacy = reader.choice("privacy", NotificationPrivacy.allCases.map(\.rawValue)).flatMap(NotificationPrivacy.init) ?? .full
        if privacy == .idsOnly, text == nil, !reader.problems.contains(where: { $0.hasPrefix("privacy_text") }) {
            reader.problem(PrivacyMessages.privacyTextRequired)
        }
        return (text, privacy)
    }
}
