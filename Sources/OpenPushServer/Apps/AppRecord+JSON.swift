import OpenPushCore
import OpenPushDelivery

extension AppRecord {
    /// The app as the `/apps` routes show it at `now`: every setting but the `.p8` itself, which is
    /// only ever reported as `has_apns_key`, the certificate and its key (`apns_auth`, its expiry
    /// and topics), and the FCM service account (`has_fcm_credentials`).
    /// `fcm_status` only for an app with an FCM service account: one without shows none.
    /// `web_push_vapid_public_key` always (the private key never); `web_push_status` only once
    /// push services refused the app's VAPID signature (paused, or the last refusal).
    func json(now: Double) -> JSONObject {
        var object: JSONObject = [
            "id": .string(id),
            "name": .string(name),
            "apns_env": .string(apnsEnv.rawValue),
            "apns_key_id": .optional(apnsKeyID),
            "apns_team_id": .optional(apnsTeamID),
            "apns_bundle_id": .optional(apnsBundleID),
            "apns_watch_bundle_id": .optional(apnsWatchBundleID),
            "has_apns_key": .bool(hasAPNSKey),
            "apns_auth": .string(apnsAuth.rawValue),
            "apns_certificate_expires_at": apnsCertificateExpiresAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
            "apns_certificate_topics": apnsCertificateTopics.map { .array($0.map(JSONValue.string)) } ?? .null,
            "has_fcm_credentials": .bool(hasFCMCredentials),
            "fcm_project_id": .optional(fcmProjectID),
            "shared_demo": .bool(sharedDemo),
            "live_activity_auto_end_minutes": liveActivityAutoEndMinutes.map { .int(Int64($0)) } ?? .null,
            "onesignal_alias": .bool(onesignalAlias),
            "dedupe_window_days": .int(Int64(dedupeWindowDays)),
            "stale_alert_seconds": .int(Int64(staleAlertSeconds)),
            "default_privacy_text": .string(defaultPrivacyText),
            "live_activity_update_interval_seconds": .int(Int64(liveActivityUpdateIntervalSeconds)),
            "widget_push_interval_seconds": .int(Int64(widgetPushIntervalSeconds)),
            "created_at": .string(Timestamp.iso8601(createdAt)),
            "updated_at": .string(Timestamp.iso8601(updatedAt)),
            "apns_status": apnsStatus(now: now),
        ]
        if hasFCMCredentials { object["fcm_status"] = fcmStatus }
        object["web_push_vapid_public_key"] = .optional(webPushVAPIDPublicKey)
        object["web_push_subject"] = .optional(webPushSubject)
        if webPushPausedAt != nil || webPushStatusAt != nil { object["web_push_status"] = webPushStatus }
        return object
    }

    /// The app as the `/apps` routes answer it: `json` and the deployment's organization, which
    /// OneSignal's `App` carries.
    func json(organizationID: String, now: Double) -> JSONObject {
        var object = json(now: now)
        object["organization_id"] = .string(organizationID)
        return object
    }

    /// `paused` while APNs rejects the credentials (or the certificate expired), `expiring` in the
    /// certificate's last thirty days (`CertificateExpiry`), else `ok`; the last rejection's reason
    /// and time either way, and `warning` while it is expiring.
    func apnsStatus(now: Double) -> JSONValue {
        let expiring = apnsCertificateExpiresAt.map { CertificateExpiry.stage(expiresAt: $0, now: now) == .expiring } ?? false
        var status: JSONObject = [
            "state": apnsPausedAt != nil ? "paused" : expiring ? "expiring" : "ok",
            "reason": .optional(apnsStatusReason),
            "at": apnsStatusAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
        ]
        if expiring, apnsPausedAt == nil, let expiresAt = apnsCertificateExpiresAt {
            status["warning"] = .string("the APNs certificate expires at \(Timestamp.iso8601(expiresAt)): "
                + "upload a new one (apns_p12) before then, or its pushes will wait")
        }
        return .object(status)
    }

    /// As `apnsStatus`, for FCM; shown only for an app with an FCM service account.
    var fcmStatus: JSONValue {
        [
            "state": fcmPausedAt == nil ? "ok" : "paused",
            "reason": .optional(fcmStatusReason),
            "at": fcmStatusAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
        ]
    }
}

extension AppRecord {
    /// As `fcmStatus`, for Web Push: `paused` while push services refuse the app's VAPID signature.
    var webPushStatus: JSONValue {
        [
            "state": webPushPausedAt == nil ? "ok" : "paused",
            "reason": .optional(webPushStatusReason),
            "at": webPushStatusAt.map { .string(Timestamp.iso8601($0)) } ?? .null,
        ]
    }
}

extension JSONValue {
    /// A string, or `null` when there is none.
    fileprivate static func optional(_ text: String?) -> JSONValue {
        text.map(JSONValue.string) ?? .null
    }
}
