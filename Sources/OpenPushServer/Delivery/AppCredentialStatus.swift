public import Postgres

/// An app whose APNs credentials were rejected stops sending until they are fixed: its
/// deliveries stay queued, and `GET /apps/{id}` shows `apns_status` with the reason and time.
public enum AppCredentialStatus {
    public static func pause(appID: String, reason: String, now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE apps SET apns_paused_at = COALESCE(apns_paused_at, to_timestamp(\(now))),
                            apns_status_reason = \(reason), apns_status_at = to_timestamp(\(now))
            WHERE id = \(appID)
            """)
    }

    /// New credentials resume the app's deliveries.
    public static func resume(appID: String, in connection: PostgresConnection) throws {
        try connection.query("UPDATE apps SET apns_paused_at = NULL WHERE id = \(appID) AND apns_paused_at IS NOT NULL")
    }
}
