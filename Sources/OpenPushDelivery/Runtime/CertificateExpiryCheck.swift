import OpenPushCore
package import Postgres

/// The periodic side of `CertificateExpiry` (run with the maintenance): certificates within
/// thirty days of their expiry get their one `app.credentials_expiring` event, and apps whose
/// certificate expired are paused, so their pushes wait for a new credential.
package enum CertificateExpiryCheck {
    /// What one pass did.
    package struct Outcome: Sendable, Equatable {
        package var warned: [String] = []
        package var paused: [String] = []
    }

    /// Looks only at certificates inside the warning window; each app in its own transaction, its
    /// row locked, so two processes running this at once emit one event.
    @discardableResult
    package static func run(now: Double, in database: PostgresPool) async throws -> Outcome {
        let candidates: [String] = try await database.query("""
            SELECT id FROM apps
            WHERE apns_auth = 'certificate'
              AND apns_certificate_expires_at <= to_timestamp(\(now + CertificateExpiry.warningSeconds))
            ORDER BY id
            """).map { try $0.decode("id") }
        var outcome = Outcome()
        for id in candidates {
            let actions = try await database.transaction { connection in try check(appID: id, now: now, in: connection) }
            if actions.warn { outcome.warned.append(id) }
            if actions.pause { outcome.paused.append(id) }
        }
        return outcome
    }

    static func check(appID: String, now: Double, in connection: PostgresConnection) throws -> CertificateExpiry.Actions {
        guard let row = try connection.query("""
            SELECT extract(epoch FROM apns_certificate_expires_at)::float8 AS expires_at, apns_certificate_topics,
                   apns_certificate_warned_at IS NOT NULL AS warned,
                   (apns_paused_at IS NOT NULL AND apns_status_reason = \(CertificateExpiry.pauseReason)) AS paused_for_expiry
            FROM apps WHERE id = \(appID) AND apns_auth = 'certificate' FOR UPDATE
            """).first else { return CertificateExpiry.Actions() }
        let expiresAt: Double = try row.decode("expires_at")
        let actions = CertificateExpiry.actions(expiresAt: expiresAt, warned: try row.decode("warned"),
                                                pausedForExpiry: try row.decode("paused_for_expiry"), now: now)
        if actions.warn {
            try connection.query("UPDATE apps SET apns_certificate_warned_at = to_timestamp(\(now)) WHERE id = \(appID)")
            let topics: [String] = try row.decode("apns_certificate_topics")
            try EventOutbox.append([OutboundEvent(type: .appCredentialsExpiring, appID: appID,
                                                  data: EventData.credentialsExpiring(expiresAt: expiresAt, topics: topics))],
                                   in: connection)
        }
        if actions.pause {
            try AppCredentialStatus.pause(appID: appID, reason: CertificateExpiry.pauseReason, now: now, in: connection)
        }
        return actions
    }
}
