package import OpenPushCore
package import OpenPushDelivery
package import Postgres

/// An app authenticates to APNs with a `.p8` key or a certificate, one at a time: storing one
/// clears the other. The certificate and its key are sealed like the `.p8`; its expiry and topics
/// stay in clear for the views and the expiry check.
extension AppStore {
    /// Stores `certificate` as the app's APNs credential: the `.p8`, its key id and team go, and
    /// the expiry warning of an earlier certificate is forgotten.
    package static func setCertificate(_ certificate: APNSCertificateUpload, appID: String, sealing keyring: SecretKeyring,
                                      in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET apns_auth = 'certificate', apns_certificate = \(keyring.seal(certificate.credentialPEM)),
                            apns_certificate_expires_at = to_timestamp(\(certificate.expiresAt)),
                            apns_certificate_topics = \(certificate.topics), apns_certificate_warned_at = NULL,
                            apns_p8 = NULL, apns_key_id = NULL, apns_team_id = NULL
            WHERE id = \(appID)
            """)
    }

    /// Drops the certificate (removed, or replaced by a `.p8`): the app is back on token auth.
    static func clearCertificate(appID: String, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET apns_auth = 'token', apns_certificate = NULL, apns_certificate_expires_at = NULL,
                            apns_certificate_topics = NULL, apns_certificate_warned_at = NULL
            WHERE id = \(appID) AND apns_auth = 'certificate'
            """)
    }

    /// What a `PUT` checks a certificate or bundle id change against: the app's bundle id and
    /// certificate topics (nil without a certificate), locked for the update; nil when there is no
    /// such app. The topics are read through the row's JSON, as `AppRecord` reads them, so a
    /// schema from before certificates still reads.
    static func lockForUpdate(_ id: String, in connection: PostgresConnection) throws -> (bundleID: String?, topics: [String]?)? {
        guard let row = try connection.query("""
            SELECT apns_bundle_id,
                   (SELECT array_agg(topic) FROM jsonb_array_elements_text(
                       CASE jsonb_typeof(to_jsonb(apps) -> 'apns_certificate_topics') WHEN 'array'
                       THEN to_jsonb(apps) -> 'apns_certificate_topics' END) AS topic) AS topics
            FROM apps WHERE id = \(id) FOR UPDATE
            """).first else { return nil }
        return (try row.decode("apns_bundle_id"), try row.decode("topics"))
    }
}
