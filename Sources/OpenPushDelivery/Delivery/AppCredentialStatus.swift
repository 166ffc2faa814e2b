package import OpenPushCore
package import Postgres

/// An app whose APNs credentials were rejected stops sending until they are fixed: its
/// deliveries stay queued, and `GET /apps/{id}` shows `apns_status` with the reason and time.
/// Its FCM sending pauses on its own (`fcm_status`): only its Android pushes wait.
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
