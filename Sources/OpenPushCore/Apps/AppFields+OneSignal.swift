/// OneSignal's `App` fields that OpenPush accepts in `POST /apps` and `PUT /apps/{app_id}` and
/// ignores: the other channels' settings (Android, Chrome, Safari web push) and the read-only
/// fields a client may send back from `get_app`. They are named in the answer's ignored-fields
/// header. OneSignal's `apns_certificates` (the PEM it shows back) is refused instead: silently
/// dropping a credential would leave the app unable to send, and a certificate comes as `apns_p12`.
extension AppFields {
    package static let oneSignalIgnoredFields: [String] = [
        "id", "players", "messageable_players", "created_at", "updated_at", "organization_id", "basic_auth_key",
        "android_gcm_sender_id", "gcm_key", "chrome_web_origin", "chrome_key", "chrome_web_default_notification_icon",
        "chrome_web_sub_domain", "safari_apns_certificates", "safari_apns_p12", "safari_apns_p12_password",
        "safari_site_origin", "safari_push_id", "safari_icon_16_16", "safari_icon_32_32", "safari_icon_64_64",
        "safari_icon_128_128", "safari_icon_256_256", "site_name", "additional_data_is_root_payload",
    ]
    package static let apnsCertificateFields = ["apns_certificates"]

    /// Marks the ignored fields read (returning those present, in body order) and refuses certificates.
    static func readOneSignalFields(_ reader: inout FieldReader) -> [String] {
        for field in apnsCertificateFields where reader.has(field) {
            _ = reader.value(field)
            reader.problem("\(field) is not supported: send the certificate as apns_p12 (the .p12 file as base64) "
                + "with apns_p12_password, or a .p8 key (apns_p8, apns_key_id, apns_team_id)")
        }
        let present = reader.object.keys.filter(oneSignalIgnoredFields.contains)
        for field in present { _ = reader.value(field) }
        return present
    }
}
