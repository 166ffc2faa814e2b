/// The body of `POST /apps` and `PUT /apps/{app_id}` (and the flags of `openpush apps create`),
/// read and checked. Fields that cannot be empty are optionals: `nil` leaves them as they are
/// (or at their default on creation). Fields that can be empty are `FieldChange`s, so `null`
/// in an update clears them.
package struct AppFields: Sendable, Equatable {
    package enum Purpose: Sendable {
        case create
        case update
    }

    package static let nameMaxLength = 128
    package static let textMaxLength = 255
    /// In the order `apns_env`'s error text lists them.
    package static let environments: [DeviceEnvironment] = [.sandbox, .production]
    package static let autoEndMinutes: ClosedRange<Int64> = 1...120
    package static let badAPNSKey = "apns_p8 must be the PEM text of an EC P-256 private key (the .p8 file from Apple)"

    package var name: String?
    package var apnsEnv: DeviceEnvironment?
    package var sharedDemo: Bool?
    package var onesignalAlias: Bool?
    package var apnsP8: FieldChange<String> = .keep
    /// `apns_p12` with `apns_p12_password` (`AppFields+Certificate`); `null` removes the certificate.
    package var apnsCertificate: FieldChange<APNSCertificateUpload> = .keep
    package var apnsKeyID: FieldChange<String> = .keep
    package var apnsTeamID: FieldChange<String> = .keep
    package var apnsBundleID: FieldChange<String> = .keep
    package var apnsWatchBundleID: FieldChange<String> = .keep
    /// `fcm_service_account` (`AppFields+FCM`); `null` removes it.
    package var fcmServiceAccount: FieldChange<FCMServiceAccount> = .keep
    package var liveActivityAutoEndMinutes: FieldChange<Int> = .keep
    /// `dedupe_window_days` and `stale_alert_seconds`.
    package var alertGates = AppAlertGateFields()
    /// `nil` leaves it as it is (`AppFields+Privacy`).
    package var defaultPrivacyText: String?
    /// Delivery policy intervals (`AppFields+DeliveryPolicy.swift`); nil leaves them (or the default).
    package var liveActivityUpdateIntervalSeconds: Int?
    package var widgetPushIntervalSeconds: Int?
    /// `web_push_subject` (`AppFields+WebPush`); `null` clears it.
    package var webPushSubject: FieldChange<String> = .keep
    /// An imported `web_push_vapid_private_key` and the public key derived from it; nil keeps the key.
    package var webPushVAPIDKey: WebPushKeyPair?
    /// OneSignal fields given and ignored (`AppFields+OneSignal`), in body order.
    package var ignored: [String] = []

    package init() {}

    /// Reads every field, reporting every problem in one `InvalidInput`. Parsing the key and the
    /// certificate is the caller's (`isP256PrivateKey`, `checkRSAKey`, `readCertificate`), which
    /// keeps this free of cryptography.
    package static func read(_ object: JSONObject, for purpose: Purpose, isP256PrivateKey: (String) -> Bool,
                            checkRSAKey: (String) -> FCMServiceAccount.KeyCheck = { _ in .unparseable },
                            readCertificate: CertificateReader = { _, _ in .failure(.notPKCS12) },
                            readVAPIDKey: (String) -> WebPushKeyPair? = { _ in nil }) throws(InvalidInput) -> AppFields {
        var reader = FieldReader(object)
        var fields = AppFields()
        switch purpose {
        case .create:
            fields.name = reader.string("name", required: true, maxLength: nameMaxLength)
            fields.apnsEnv = reader.choice("apns_env", among: environments)
            fields.sharedDemo = reader.bool("shared_demo")
            fields.onesignalAlias = reader.bool("onesignal_alias")
        case .update:
            fields.name = reader.notNull("name") { $0.string("name", required: true, maxLength: nameMaxLength) }
            fields.apnsEnv = reader.notNull("apns_env") { $0.choice("apns_env", among: environments) }
            fields.sharedDemo = reader.notNull("shared_demo") { $0.bool("shared_demo") }
            fields.onesignalAlias = reader.notNull("onesignal_alias") { $0.bool("onesignal_alias") }
        }
        fields.apnsP8 = reader.text("apns_p8", maxLength: 16_384)
        if let pem = fields.apnsP8.newValue, !isP256PrivateKey(pem) {
            reader.problem(badAPNSKey)
            fields.apnsP8 = .keep
        }
        fields.apnsCertificate = readP12(&reader, parse: readCertificate)
        for conflict in certificateConflicts(object) { reader.problem(conflict) }
        fields.apnsKeyID = reader.text("apns_key_id", maxLength: textMaxLength)
        fields.apnsTeamID = reader.text("apns_team_id", maxLength: textMaxLength)
        fields.apnsBundleID = reader.bundleID("apns_bundle_id", maxLength: textMaxLength)
        fields.apnsWatchBundleID = reader.bundleID("apns_watch_bundle_id", maxLength: textMaxLength)
        fields.fcmServiceAccount = readFCMServiceAccount(&reader, checkKey: checkRSAKey)
        fields.liveActivityAutoEndMinutes = reader.change("live_activity_auto_end_minutes") {
            $0.integer("live_activity_auto_end_minutes", in: autoEndMinutes).map(Int.init)
        }
        fields.alertGates = AppAlertGateFields.read(&reader)
        fields.defaultPrivacyText = readDefaultPrivacyText(&reader)
        fields.readDeliveryPolicy(&reader, for: purpose)
        fields.readWebPush(&reader, parseKey: readVAPIDKey)
        fields.ignored = readOneSignalFields(&reader)
        reader.rejectUnknownFields()
        try reader.finish()
        return fields
    }
}

extension FieldReader {
    /// A field that may be left out of an update but not cleared: `null` is a problem.
    fileprivate mutating func notNull<Value>(_ key: String, _ read: (inout FieldReader) -> Value?) -> Value? {
        switch object[key] {
        case nil:
            return nil
        case .null?:
            _ = value(key)
            problem("\(key) cannot be null")
            return nil
        default:
            return read(&self)
        }
    }

    /// A bundle id: it goes out as the `apns-topic` header and in broadcast and channel paths,
    /// so a control character, a non-ASCII one or a space is refused (`HeaderText`).
    fileprivate mutating func bundleID(_ key: String, maxLength: Int) -> FieldChange<String> {
        let change = text(key, maxLength: maxLength)
        guard let id = change.newValue, !HeaderText.isVisibleASCII(id) else { return change }
        problem("\(key) must be printable ASCII without spaces: it is sent as the apns-topic header")
        return .keep
    }

    /// Optional text: `null` clears it; an empty or blank string is a mistake, not a way to clear.
    fileprivate mutating func text(_ key: String, maxLength: Int) -> FieldChange<String> {
        change(key) { reader in
            guard let text = reader.string(key, maxLength: maxLength) else { return nil }
            guard !text.allSatisfy(\.isWhitespace) else {
                reader.problem("\(key) must not be blank (send null to clear it)")
                return nil
            }
            return text
        }
    }
}
