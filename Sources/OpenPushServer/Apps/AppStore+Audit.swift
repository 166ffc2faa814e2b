import OpenPushCore
import OpenPushDelivery
import Postgres

extension AppStore {
    /// The audit entries of a `PUT /apps/{id}`: `app.updated` naming the fields it changed, and
    /// `credentials.updated` as well when it changed the APNs signing key, its id or the team, the certificate, or
    /// the FCM service account (names only, never values).
    static func recordUpdate(_ fields: AppFields, appID: String, by stamp: AuditStamp, now: Double,
                             in connection: PostgresConnection) throws {
        let changed = fields.changedFieldNames
        try AuditLogStore.record(.appUpdated, target: appID, appID: appID, metadata: ["fields": .array(changed.map(JSONValue.string))],
                                 by: stamp, now: now, in: connection)
        let credentials = changed.filter(AppFields.credentialFieldNames.contains)
        guard !credentials.isEmpty else { return }
        try AuditLogStore.record(.credentialsUpdated, target: appID, appID: appID,
                                 metadata: ["fields": .array(credentials.map(JSONValue.string))], by: stamp, now: now, in: connection)
    }
}

extension AppFields {
    /// The settings that authenticate the app to APNs, FCM and browsers' push services.
    static let credentialFieldNames: Set<String> = [
        "apns_p8", "apns_p12", "apns_key_id", "apns_team_id", "fcm_service_account", "web_push_vapid_private_key",
    ]

    /// The body fields this update sets or clears, in a stable order.
    var changedFieldNames: [String] {
        var names: [String] = []
        func note(_ name: String, _ changed: Bool) { if changed { names.append(name) } }
        note("name", name != nil)
        note("apns_env", apnsEnv != nil)
        note("apns_p8", !apnsP8.isKeep)
        note("apns_p12", !apnsCertificate.isKeep)
        note("apns_key_id", !apnsKeyID.isKeep)
        note("apns_team_id", !apnsTeamID.isKeep)
        note("apns_bundle_id", !apnsBundleID.isKeep)
        note("apns_watch_bundle_id", !apnsWatchBundleID.isKeep)
        note("fcm_service_account", !fcmServiceAccount.isKeep)
        note("shared_demo", sharedDemo != nil)
        note("onesignal_alias", onesignalAlias != nil)
        note("live_activity_auto_end_minutes", !liveActivityAutoEndMinutes.isKeep)
        note("dedupe_window_days", alertGates.dedupeWindowDays != nil)
        note("stale_alert_seconds", alertGates.staleAlertSeconds != nil)
        note("default_privacy_text", defaultPrivacyText != nil)
        note("live_activity_update_interval_seconds", liveActivityUpdateIntervalSeconds != nil)
        note("widget_push_interval_seconds", widgetPushIntervalSeconds != nil)
        note("web_push_subject", !webPushSubject.isKeep)
        note("web_push_vapid_private_key", webPushVAPIDKey != nil)
        return names
    }
}
