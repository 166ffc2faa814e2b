package import OpenPushCore
package import Postgres

/// An app whose APNs credentials were rejected stops sending until they are fixed: its
/// deliveries stay queued, and `GET /apps/{id}` shows `apns_status` with the reason and time.
/// Its FCM sending pauses on its own (`fcm_status`): only its Android pushes wait; so does its
/// web push (`web_push_status`): only its browser pushes wait.
package enum AppCredentialStatus {
    package static func pause(appID: String, reason: String, now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET apns_paused_at = COALESCE(apns_paused_at, to_timestamp(\(now))),
                            apns_status_reason = \(reason), apns_status_at = to_timestamp(\(now))
            WHERE id = \(appID)
            """)
    }

    package static func pauseFCM(appID: String, reason: String, now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET fcm_paused_at = COALESCE(fcm_paused_at, to_timestamp(\(now))),
                            fcm_status_reason = \(reason), fcm_status_at = to_timestamp(\(now))
            WHERE id = \(appID)
            """)
    }

    package static func pauseWebPush(appID: String, reason: String, now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET web_push_paused_at = COALESCE(web_push_paused_at, to_timestamp(\(now))),
                            web_push_status_reason = \(reason), web_push_status_at = to_timestamp(\(now))
            WHERE id = \(appID)
            """)
    }

    /// What a web push pause depends on: the app's VAPID key and subject, as stored now.
    package static func webPushSettings(appID: String, in connection: PostgresConnection) throws -> [String?] {
        guard let row = try connection.query("""
            SELECT web_push_vapid_private_key, web_push_subject FROM apps WHERE id = \(appID)
            """).first else { return [] }
        return [try row.decode("web_push_vapid_private_key"), try row.decode("web_push_subject")]
    }

    /// Lifts the app's web push pause when its VAPID key or subject is no longer `before`
    /// (`webPushSettings`): its held web pushes' waits (`DeliveryPlanner.webPushPauseRecheckSeconds`)
    /// end now, and the workers are woken when the transaction commits.
    @discardableResult
    package static func resumeWebPush(appID: String, ifChangedFrom before: [String?], in connection: PostgresConnection) throws -> Bool {
        guard try webPushSettings(appID: appID, in: connection) != before else { return false }
        let resumed = try connection.query("""
            UPDATE apps SET web_push_paused_at = NULL WHERE id = \(appID) AND web_push_paused_at IS NOT NULL RETURNING id
            """)
        guard !resumed.isEmpty else { return false }
        try connection.query("""
            UPDATE delivery_jobs SET due_at = now()
            WHERE app_id = \(appID) AND leased_until IS NULL AND due_at > now()
              AND due_at <= now() + make_interval(secs => \(DeliveryPlanner.webPushPauseRecheckSeconds))
            """)
        try MessageStore.notifyWorkers(appID: appID, in: connection)
        return true
    }

    /// Lifts the app's FCM pause when its service account changed (set or removed). Its Android
    /// pushes were deferred a short while at a time (`DeliveryPlanner.fcmPauseRecheckSeconds`):
    /// those waits end now, and the workers are woken when the transaction commits.
    @discardableResult
    package static func resumeFCM(appID: String, in connection: PostgresConnection) throws -> Bool {
        let resumed = try connection.query("""
            UPDATE apps SET fcm_paused_at = NULL WHERE id = \(appID) AND fcm_paused_at IS NOT NULL RETURNING id
            """)
        guard !resumed.isEmpty else { return false }
        try connection.query("""
            UPDATE delivery_jobs SET due_at = now()
            WHERE app_id = \(appID) AND leased_until IS NULL AND due_at > now()
              AND due_at <= now() + make_interval(secs => \(DeliveryPlanner.fcmPauseRecheckSeconds))
            """)
        try MessageStore.notifyWorkers(appID: appID, in: connection)
        return true
    }

    /// Lifts the pause when `changed` holds a setting its reason depends on (see
    /// `CredentialPause`): the held jobs go out with the next claims, and the workers are woken
    /// when the transaction commits. Returns whether the app was resumed.
    @discardableResult
    package static func resumeIfFixed(appID: String, changed: Set<CredentialPause.Field>,
                                     in connection: PostgresConnection) throws -> Bool {
        guard !changed.isEmpty else { return false }
        let rows = try connection.query("""
            SELECT apns_status_reason FROM apps WHERE id = \(appID) AND apns_paused_at IS NOT NULL FOR UPDATE
            """)
        guard let row = rows.first, CredentialPause.isLifted(reason: try row.decode("apns_status_reason"), changed: changed)
        else { return false }
        // Its held jobs are due already; claims skipped them while the app was paused.
        try connection.query("UPDATE apps SET apns_paused_at = NULL WHERE id = \(appID)")
        try MessageStore.notifyWorkers(appID: appID, in: connection)
        return true
    }
}
