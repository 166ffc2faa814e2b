package import OpenPushCore
package import OpenPushDelivery
package import Postgres

/// What creating an app returns: the row and the two keys, shown this once.
package struct CreatedApp: Sendable {
    package var app: AppRecord
    package var restKey: String
    package var restKeyID: String
    package var sdkKey: String
}

/// The settings an app is created or updated with; `nil` leaves a column as it is (or at its
/// default on creation).
package struct AppSettings: Sendable, Equatable {
    package var name: String?
    package var apnsEnv: DeviceEnvironment?
    package var apnsP8: String?
    /// Certificate authentication instead of the `.p8` (stored sealed, `apns_auth = 'certificate'`).
    package var apnsCertificate: APNSCertificateUpload?
    package var apnsKeyID: String?
    package var apnsTeamID: String?
    package var apnsBundleID: String?
    package var apnsWatchBundleID: String?
    /// Stored sealed (its `json`), with its project id in clear.
    package var fcmServiceAccount: FCMServiceAccount?
    package var sharedDemo: Bool?
    package var liveActivityAutoEndMinutes: Int?
    package var onesignalAlias: Bool?
    /// `dedupe_window_days` and `stale_alert_seconds` (`nil`: the default).
    package var alertGates = AppAlertGateFields()
    /// `nil` keeps the column's default, `"New notification"`.
    package var defaultPrivacyText: String?
    /// Delivery policy intervals; nil: the column's default.
    package var liveActivityUpdateIntervalSeconds: Int?
    package var widgetPushIntervalSeconds: Int?
    /// An imported VAPID key pair; nil: a fresh one is made.
    package var webPushVAPIDKey: WebPushKeyPair?
    package var webPushSubject: String?

    package init(name: String? = nil, apnsEnv: DeviceEnvironment? = nil, apnsP8: String? = nil, apnsKeyID: String? = nil,
                apnsTeamID: String? = nil, apnsBundleID: String? = nil, apnsWatchBundleID: String? = nil,
                sharedDemo: Bool? = nil, liveActivityAutoEndMinutes: Int? = nil, onesignalAlias: Bool? = nil,
                liveActivityUpdateIntervalSeconds: Int? = nil, widgetPushIntervalSeconds: Int? = nil) {
        self.name = name
        self.apnsEnv = apnsEnv
        self.apnsP8 = apnsP8
        self.apnsKeyID = apnsKeyID
        self.apnsTeamID = apnsTeamID
        self.apnsBundleID = apnsBundleID
        self.apnsWatchBundleID = apnsWatchBundleID
        self.sharedDemo = sharedDemo
        self.liveActivityAutoEndMinutes = liveActivityAutoEndMinutes
        self.onesignalAlias = onesignalAlias
        self.liveActivityUpdateIntervalSeconds = liveActivityUpdateIntervalSeconds
        self.widgetPushIntervalSeconds = widgetPushIntervalSeconds
    }
}

extension AppStore {
    /// Inserts an app with a fresh SDK key and a first REST key named "default", and its
    /// `app.created` audit entry, in one transaction. Settings are assumed valid (routes validate before calling). The `.p8`
    /// (or certificate) is stored sealed with `keyring` (in clear when it has no current key), and so are the FCM service account
    /// and the app's VAPID private key (made here unless one is imported).
    package static func create(_ settings: AppSettings, now: Double, sealing keyring: SecretKeyring = SecretKeyring(),
                              audit: AuditStamp = .commandLine, in database: PostgresPool) async throws -> CreatedApp {
        let id = Identifier.make(prefix: "app", now: now, random: KeyMaterial.identifierEntropy())
        let keyID = Identifier.make(prefix: "key", now: now, random: KeyMaterial.identifierEntropy())
        let sdkKey = KeyMaterial.issue(prefix: "sdk")
        let restKey = KeyMaterial.issue(prefix: "rest")
        let vapidKey = try settings.webPushVAPIDKey ?? WebPushKeyPair.generate()
        let app = try await database.transaction { connection -> AppRecord in
            try connection.query("""
                INSERT INTO apps (id, name, apns_env, apns_p8, apns_key_id, apns_team_id, apns_bundle_id,
                                  apns_watch_bundle_id, shared_demo, live_activity_auto_end_minutes, onesignal_alias,
                                  sdk_key_digest, created_at, updated_at)
                VALUES (\(id), \(settings.name ?? "Untitled app"), \((settings.apnsEnv ?? .production).rawValue), \(settings.apnsP8.map(keyring.seal)),
                        \(settings.apnsKeyID), \(settings.apnsTeamID), \(settings.apnsBundleID), \(settings.apnsWatchBundleID),
                        \(settings.sharedDemo ?? false), \(settings.liveActivityAutoEndMinutes), \(settings.onesignalAlias ?? false),
                        \(sdkKey.digest), to_timestamp(\(now)), to_timestamp(\(now)))
                """)
            // Only when given: the columns are absent from a database not yet upgraded past 0054,
            // which the upgrade tests create apps in.
            if let account = settings.fcmServiceAccount {
                try connection.query("""
                    UPDATE apps SET fcm_service_account = \(keyring.seal(account.json)), fcm_project_id = \(account.projectID)
                    WHERE id = \(id)
                    """)
            }
            if let certificate = settings.apnsCertificate {
                try setCertificate(certificate, appID: id, sealing: keyring, in: connection)
            }
            if try VAPIDKeyStore.hasColumns(in: connection) {
                try VAPIDKeyStore.replace(appID: id, with: vapidKey, keyring: keyring, in: connection)
                if let subject = settings.webPushSubject {
                    try connection.query("UPDATE apps SET web_push_subject = \(subject) WHERE id = \(id)")
                }
            }
            try connection.query("""
                INSERT INTO api_keys (id, app_id, name, digest, created_at)
                VALUES (\(keyID), \(id), 'default', \(restKey.digest), to_timestamp(\(now)))
                """)
            try setAlertGates(settings.alertGates, appID: id, in: connection)
            try applyPrivacySettings(settings, appID: id, in: connection)
            try DeliveryPolicySettings.apply(settings, appID: id, in: connection)
            try AuditLogStore.record(.appCreated, target: id, appID: id, by: audit, now: now, in: connection)
            guard let app = try find(id, in: connection) else { throw InvariantViolation("app vanished in its own transaction") }
            return app
        }
        return CreatedApp(app: app, restKey: restKey.value, restKeyID: keyID, sdkKey: sdkKey.value)
    }
}
