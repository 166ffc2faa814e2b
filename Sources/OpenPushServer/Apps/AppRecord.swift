package import OpenPushCore
import OpenPushDelivery
package import Postgres

/// One row of `apps`, without its secrets (the `.p8` text, the certificate and its key, and the FCM
/// service account stay in the database).
package struct AppRecord: Sendable, Equatable {
    package var id: String
    package var name: String
    package var apnsEnv: DeviceEnvironment
    package var hasAPNSKey: Bool
    /// How the app authenticates to APNs; with a certificate, when it expires and its topics.
    package var apnsAuth: APNSAuth
    package var apnsCertificateExpiresAt: Double?
    package var apnsCertificateTopics: [String]?
    package var apnsKeyID: String?
    package var apnsTeamID: String?
    package var apnsBundleID: String?
    package var apnsWatchBundleID: String?
    /// Whether an FCM service account is stored, and its project.
    package var hasFCMCredentials: Bool
    package var fcmProjectID: String?
    package var sharedDemo: Bool
    package var liveActivityAutoEndMinutes: Int?
    package var onesignalAlias: Bool
    /// `dedupe_window_days` (1–365) and `stale_alert_seconds` (0 = off).
    package var dedupeWindowDays: Int
    package var staleAlertSeconds: Int
    /// Shown instead of the texts to a device that hides details, when a message has no `privacy_text`.
    package var defaultPrivacyText: String
    /// Delivery policy: Live Activity update coalescing and the widget push throttle (0: off).
    package var liveActivityUpdateIntervalSeconds: Int
    package var widgetPushIntervalSeconds: Int
    package var sdkKeyDigest: [UInt8]
    /// Set while APNs rejects the app's credentials (its deliveries wait); the last rejection
    /// stays visible after the credentials are fixed.
    package var apnsPausedAt: Double?
    package var apnsStatusReason: String?
    package var apnsStatusAt: Double?
    /// The same for FCM: set while FCM refuses the app's service account (its Android pushes wait).
    package var fcmPausedAt: Double?
    package var fcmStatusReason: String?
    package var fcmStatusAt: Double?
    /// The VAPID public key (base64url; nil only for an app from before Web Push that has not
    /// needed one yet), the `sub` claim the app set, and the web push pause, like FCM's.
    package var webPushVAPIDPublicKey: String?
    package var webPushSubject: String?
    package var webPushPausedAt: Double?
    package var webPushStatusReason: String?
    package var webPushStatusAt: Double?
    /// Unix seconds.
    package var createdAt: Double
    package var updatedAt: Double

    /// The columns `init(row:)` reads; select them with `AppRecord.columns`.
    package static let columns: PostgresQuery = """
        SELECT id, name, apns_env, apns_p8 IS NOT NULL AS has_apns_key, apns_key_id, apns_team_id, apns_bundle_id,
               apns_watch_bundle_id, shared_demo, live_activity_auto_end_minutes, onesignal_alias, sdk_key_digest,
               extract(epoch FROM created_at)::float8 AS created_at, extract(epoch FROM updated_at)::float8 AS updated_at,
               extract(epoch FROM apns_paused_at)::float8 AS apns_paused_at, apns_status_reason,
               extract(epoch FROM apns_status_at)::float8 AS apns_status_at,
               -- Through the row's JSON, like the policy columns, so a schema before 0054 still reads
               -- (the project id is set exactly when the service account is, by a constraint).
               policy.doc ->> 'fcm_project_id' AS fcm_project_id,
               (policy.doc ->> 'fcm_project_id') IS NOT NULL AS has_fcm_credentials,
               extract(epoch FROM (policy.doc ->> 'fcm_paused_at')::timestamptz)::float8 AS fcm_paused_at,
               policy.doc ->> 'fcm_status_reason' AS fcm_status_reason,
               COALESCE(policy.doc ->> 'apns_auth', 'token') AS apns_auth,
               extract(epoch FROM (policy.doc ->> 'apns_certificate_expires_at')::timestamptz)::float8
                   AS apns_certificate_expires_at,
               (SELECT array_agg(topic) FROM jsonb_array_elements_text(
                   CASE jsonb_typeof(policy.doc -> 'apns_certificate_topics') WHEN 'array' THEN policy.doc -> 'apns_certificate_topics' END
               ) AS topic) AS apns_certificate_topics,
               extract(epoch FROM (policy.doc ->> 'fcm_status_at')::timestamptz)::float8 AS fcm_status_at,
               policy.doc ->> 'web_push_vapid_public_key' AS web_push_vapid_public_key,
               policy.doc ->> 'web_push_subject' AS web_push_subject,
               extract(epoch FROM (policy.doc ->> 'web_push_paused_at')::timestamptz)::float8 AS web_push_paused_at,
               policy.doc ->> 'web_push_status_reason' AS web_push_status_reason,
               extract(epoch FROM (policy.doc ->> 'web_push_status_at')::timestamptz)::float8 AS web_push_status_at,
               \(DeliveryPolicySettings.columns)
        FROM apps \(DeliveryPolicySettings.source)
        """

    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        let environment: String = try row.decode("apns_env")
        // A value this build does not know is a broken row: never read as production.
        guard let known = DeviceEnvironment(rawValue: environment) else {
            throw InvariantViolation("app apns_env '\(environment)' is neither production nor sandbox")
        }
        apnsEnv = known
        hasAPNSKey = try row.decode("has_apns_key")
        let auth: String = try row.decode("apns_auth")
        guard let knownAuth = APNSAuth(rawValue: auth) else {
            throw InvariantViolation("app apns_auth '\(auth)' is neither token nor certificate")
        }
        apnsAuth = knownAuth
        apnsCertificateExpiresAt = try row.decode("apns_certificate_expires_at")
        apnsCertificateTopics = try row.decode("apns_certificate_topics")
        apnsKeyID = try row.decode("apns_key_id")
        apnsTeamID = try row.decode("apns_team_id")
        apnsBundleID = try row.decode("apns_bundle_id")
        apnsWatchBundleID = try row.decode("apns_watch_bundle_id")
        hasFCMCredentials = try row.decode("has_fcm_credentials")
        fcmProjectID = try row.decode("fcm_project_id")
        sharedDemo = try row.decode("shared_demo")
        liveActivityAutoEndMinutes = try row.decode("live_activity_auto_end_minutes")
        onesignalAlias = try row.decode("onesignal_alias")
        sdkKeyDigest = try row.decode("sdk_key_digest")
        createdAt = try row.decode("created_at")
        updatedAt = try row.decode("updated_at")
        apnsPausedAt = try row.decode("apns_paused_at")
        apnsStatusReason = try row.decode("apns_status_reason")
        apnsStatusAt = try row.decode("apns_status_at")
        fcmPausedAt = try row.decode("fcm_paused_at")
        fcmStatusReason = try row.decode("fcm_status_reason")
        fcmStatusAt = try row.decode("fcm_status_at")
        webPushVAPIDPublicKey = try row.decode("web_push_vapid_public_key")
        webPushSubject = try row.decode("web_push_subject")
        webPushPausedAt = try row.decode("web_push_paused_at")
        webPushStatusReason = try row.decode("web_push_status_reason")
        webPushStatusAt = try row.decode("web_push_status_at")
        dedupeWindowDays = try row.decode("dedupe_window_days", as: Int?.self) ?? AlertDedupe.defaultWindowDays
        staleAlertSeconds = try row.decode("stale_alert_seconds", as: Int?.self) ?? 0
        defaultPrivacyText = try row.decode("default_privacy_text", as: String?.self) ?? AlertPrivacy.defaultPrivacyText
        (liveActivityUpdateIntervalSeconds, widgetPushIntervalSeconds) = try DeliveryPolicySettings.decode(row)
    }
}

package enum AppStore {
    package static func find(_ id: String, in connection: PostgresConnection) throws -> AppRecord? {
        try connection.query(AppRecord.columns + " WHERE id = \(id)").first.map(AppRecord.init(row:))
    }

    package static func find(_ id: String, in database: PostgresPool) async throws -> AppRecord? {
        try await database.withConnection { try find(id, in: $0) }
    }
}
