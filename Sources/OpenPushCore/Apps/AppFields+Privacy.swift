/// `default_privacy_text` of `POST /apps` and `PUT /apps/{app_id}`: what a device that hides
/// alert details is shown when a message has no `privacy_text` (plain text, 1–255 characters,
/// default `"New notification"`). It cannot be cleared: `null` and blank text are refused.
extension AppFields {
    package static let defaultPrivacyTextField = "default_privacy_text"

    static func readDefaultPrivacyText(_ reader: inout FieldReader) -> String? {
        let key = defaultPrivacyTextField
        switch reader.object[key] {
        case nil:
            return nil
        case .null?:
            _ = reader.value(key)
            reader.problem("\(key) cannot be null")
            return nil
        default:
            guard let text = reader.string(key, maxLength: AlertPrivacy.defaultPrivacyTextMaxLength) else { return nil }
            guard !text.allSatisfy(\.isWhitespace) else {
                reader.problem("\(key) must not be blank")
                return nil
            }
            return text
        }
    }
}
