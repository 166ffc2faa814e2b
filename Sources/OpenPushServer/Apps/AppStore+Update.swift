package import OpenPushCore
package import OpenPushDelivery
package import Postgres

extension AppStore {
    /// Applies the fields a `PUT` gave and bumps `updated_at`, with its audit entries, in one
    /// transaction; `nil` when there is no such app. A certificate is checked against the app's
    /// bundle id there (`AppFields.settleCertificate`: `InvalidInput` when it does not cover it).
    /// A new `.p8`, certificate, FCM service account or VAPID private key is stored sealed with `keyring` (in clear when it has no current key).
    package static func update(_ id: String, with given: AppFields, now: Double, sealing keyring: SecretKeyring = SecretKeyring(),
                              audit: AuditStamp = .commandLine, in database: PostgresPool) async throws -> AppRecord?
    {
        try await database.transaction { connection in
            guard let current = try lockForUpdate(id, in: connection) else { return nil }
            var fields = given
            try fields.settleCertificate(currentBundleID: current.bundleID, currentTopics: current.topics, now: now)
            let webPush = try AppCredentialStatus.webPushSettings(appID: id, in: connection)
            try connection.query(assignments(fields, now: now, sealing: keyring, id: id))
            if let certificate = fields.apnsCertificate.newValue {
                try setCertificate(certificate, appID: id, sealing: keyring, in: connection)
            } else if current.topics != nil, fields.apnsCertificate == .clear || fields.apnsP8.newValue != nil {
                try clearCertificate(appID: id, in: connection)
            }
            // A change to what paused the app's deliveries resumes them.
            try AppCredentialStatus.resumeIfFixed(appID: id, changed: fields.changedCredentialFields, in: connection)
            if !fields.fcmServiceAccount.isKeep { try AppCredentialStatus.resumeFCM(appID: id, in: connection) }
            if let pair = fields.webPushVAPIDKey {
                try VAPIDKeyStore.replace(appID: id, with: pair, keyring: keyring, in: connection)
            }
            try AppCredentialStatus.resumeWebPush(appID: id, ifChangedFrom: webPush, in: connection)
            try recordUpdate(fields, appID: id, by: audit, now: now, in: connection)
            return try find(id, in: connection)
        }
    }

    /// The `UPDATE` of the plain columns a `PUT` sets (the certificate's are `setCertificate`'s).
    private static func assignments(_ fields: AppFields, now: Double, sealing keyring: SecretKeyring, id: String) -> PostgresQuery {
        var assignments: [PostgresQuery] = []
        func set<Value: PostgresEncodable>(_ column: String, _ value: Value?) {
            if let value { assignments.append("\(identifier: column) = \(value)") }
        }
        func change<Value: PostgresEncodable>(_ column: String, _ change: FieldChange<Value>) {
            if !change.isKeep { assignments.append("\(identifier: column) = \(change.newValue)") }
        }
        set("name", fields.name)
        set("apns_env", fields.apnsEnv?.rawValue)
        set("shared_demo", fields.sharedDemo)
        set("onesignal_alias", fields.onesignalAlias)
        if !fields.apnsP8.isKeep { assignments.append("apns_p8 = \(fields.apnsP8.newValue.map(keyring.seal))") }
        if !fields.fcmServiceAccount.isKeep {
            let account = fields.fcmServiceAccount.newValue
            assignments.append("fcm_service_account = \(account.map { keyring.seal($0.json) })")
            assignments.append("fcm_project_id = \(account?.projectID)")
        }
        change("apns_key_id", fields.apnsKeyID)
        change("apns_team_id", fields.apnsTeamID)
        change("apns_bundle_id", fields.apnsBundleID)
        change("apns_watch_bundle_id", fields.apnsWatchBundleID)
        change("live_activity_auto_end_minutes", fields.liveActivityAutoEndMinutes)
        change("web_push_subject", fields.webPushSubject)
        assignments += alertGateAssignments(fields.alertGates)
        set("default_privacy_text", fields.defaultPrivacyText)
        set("live_activity_update_interval_seconds", fields.liveActivityUpdateIntervalSeconds)
        set("widget_push_interval_seconds", fields.widgetPushIntervalSeconds)
        assignments.append("updated_at = to_timestamp(\(now))")
        return "UPDATE apps SET \(assignments.joined(separator: ", ")) WHERE id = \(id)"
    }
}
