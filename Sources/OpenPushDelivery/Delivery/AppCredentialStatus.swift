package import OpenPushCore
package import Postgres

/// An app whose APNs credentials were rejected stops sending until they are fixed: its
/// deliveries stay queued, and `GET /apps/{id}` shows `apns_status` with the reason and time.
package enum AppCredentialStatus {
    package static func pause(appID: String, reason: String, now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET apns_paused_at = COALESCE(apns_paused_at, to_timestamp(\(now))),
                            apns_status_reason = \(reason), apns_status_at = to_timestamp(\(now))
            WHERE id = \(appID)
            """)
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
