/// The Web Push fields of `POST /apps` and `PUT /apps/{app_id}`: `web_push_subject` (the VAPID
/// `sub`; `null` clears it) and `web_push_vapid_private_key` (an imported key pair, which keeps a
/// migrating team's browser subscriptions: a subscription is bound to the key it was made with).
extension AppFields {
    package static let webPushSubjectField = "web_push_subject"
    package static let vapidPrivateKeyField = "web_push_vapid_private_key"
    package static let badVAPIDKey = "web_push_vapid_private_key must be a P-256 private key: PEM (PKCS#8 \"PRIVATE KEY\" "
        + "or SEC1 \"EC PRIVATE KEY\") or base64url of the 32-byte private scalar"

    /// Reads both; parsing the key is `parseKey`'s (nil: not a P-256 private key).
    mutating func readWebPush(_ reader: inout FieldReader, parseKey: (String) -> WebPushKeyPair?) {
        let subjectKey = Self.webPushSubjectField
        webPushSubject = reader.change(subjectKey) { reader in
            guard let subject = reader.string(subjectKey) else { return nil }
            guard WebPushSubject.isValid(subject) else {
                reader.problem("\(subjectKey) \(WebPushSubject.requirement)")
                return nil
            }
            return subject
        }
        let key = Self.vapidPrivateKeyField
        switch reader.object[key] {
        case nil:
            return
        case .null?:
            _ = reader.value(key)
            reader.problem("\(key) cannot be null: an app always has a VAPID key pair (send another key to replace it)")
        default:
            guard let text = reader.string(key, maxLength: 16_384) else { return }
            guard let pair = parseKey(text) else {
                reader.problem(Self.badVAPIDKey)
                return
            }
            webPushVAPIDKey = pair
        }
    }
}
