import Crypto
import OpenPushCore
import OpenPushDelivery
import Postgres

/// Stored webhook endpoints. Every query names the app, so no call reaches another app's.
enum WebhookStore {
    /// How long a rotated-out secret keeps signing (as a second `v1`).
    static let previousSecretSeconds: Double = 24 * 3600

    /// `whsec_` and 32 random bytes in hex: shown to the app once, kept to sign with.
    static func newSecret() -> String { "whsec_" + SecureRandom.bytes(32).hexString }

    /// The app's newest event: where a new or re-enabled endpoint's cursor starts, so it gets the
    /// events from then on only.

    /// The secret is stored sealed with `keyring` (in clear when it has no current key).
    /// A `400` when the app already has `WebhookLimits.endpointsPerApp` endpoints. The count and
    /// the insert share a transaction under a per-app advisory lock, so two creates at once
    /// (from any process) are counted one after the other and cannot both take the last place.
    static func create(appID: String, url: String, events: [String], description: String?, now: Double,
                       sealing keyring: SecretKeyring = SecretKeyring(), audit: AuditStamp = .commandLine,
                       in database: PostgresPool) async throws -> (WebhookRecord, secret: String) {
        let id = Identifier.make(prefix: "whk", now: now, random: KeyMaterial.identifierEntropy())
        let secret = newSecret()
        let newest = StoredEvent.newestPosition(appID: appID)
        let sealed = keyring.seal(secret)
        let rows = try await database.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(appID + "/webhooks"), 0))")
            let count = try connection.query("SELECT count(*)::int AS n FROM webhooks WHERE app_id = \(appID)")[0]
                .decode("n", as: Int.self)
            guard count < WebhookLimits.endpointsPerApp else { throw APIError.badRequest(WebhookLimits.tooManyEndpoints) }
            let rows = try connection.query("""
                INSERT INTO webhooks (id, app_id, url, events, description, secret, cursor_xid, cursor_seq, next_attempt_at, created_at,
                                      updated_at)
                VALUES (\(id), \(appID), \(url), \(events)::text[], \(description), \(sealed), \(newest.xid), \(newest.seq),
                        to_timestamp(\(now)), to_timestamp(\(now)), to_timestamp(\(now)))
                RETURNING \(WebhookRecord.columns)
                """)
            try AuditLogStore.record(.webhookCreated, target: id, appID: appID, by: audit, now: now, in: connection)
            return rows
        }
        return (try WebhookRecord(row: rows[0]), secret)
    }

    /// Oldest first.
    static func list(appID: String, in database: PostgresPool) async throws -> [WebhookRecord] {
        try await database.query("""
            SELECT \(WebhookRecord.columns) FROM webhooks WHERE app_id = \(appID) ORDER BY created_at, id
            """).map(WebhookRecord.init(row:))
    }

    static func find(id: String, appID: String, in connection: PostgresConnection) throws -> WebhookRecord? {
        try connection.query("SELECT \(WebhookRecord.columns) FROM webhooks WHERE id = \(id) AND app_id = \(appID)")
            .first.map(WebhookRecord.init(row:))
    }

    static func find(id: String, appID: String, in database: PostgresPool) async throws -> WebhookRecord? {
        try await database.withConnection { try find(id: id, appID: appID, in: $0) }
    }

    /// Changes the fields given. Enabling an endpoint that was disabled clears why, forgets its
    /// failures and moves its cursor to the app's newest event: it resumes with new events only.
    static func update(id: String, appID: String, fields: WebhookFields, now: Double, audit: AuditStamp = .commandLine,
                       in database: PostgresPool) async throws -> WebhookRecord? {
        let newest = StoredEvent.newestPosition(appID: appID)
        let description: PostgresQuery = switch fields.description {
        case .keep: "description"
        case .clear: "NULL"
        case .set(let text): "\(text)"
        }
        let reenable = fields.enabled == true
        let statement: PostgresQuery = """
            UPDATE webhooks SET
                url = COALESCE(\(fields.url), url),
                events = COALESCE(\(fields.events)::text[], events),
                description = \(description),
                disabled_reason = CASE WHEN \(reenable) AND NOT enabled THEN NULL ELSE disabled_reason END,
                failed_attempts = CASE WHEN \(reenable) AND NOT enabled THEN 0 ELSE failed_attempts END,
                failing_since = CASE WHEN \(reenable) AND NOT enabled THEN NULL ELSE failing_since END,
                next_attempt_at = CASE WHEN \(reenable) AND NOT enabled THEN to_timestamp(\(now)) ELSE next_attempt_at END,
                cursor_xid = CASE WHEN \(reenable) AND NOT enabled THEN \(newest.xid) ELSE cursor_xid END,
                cursor_seq = CASE WHEN \(reenable) AND NOT enabled THEN \(newest.seq) ELSE cursor_seq END,
                cursor_index = CASE WHEN \(reenable) AND NOT enabled THEN \(EventPosition.wholeRow)::int4 ELSE cursor_index END,
                enabled = COALESCE(\(fields.enabled), enabled),
                updated_at = to_timestamp(\(now))
            WHERE id = \(id) AND app_id = \(appID)
            RETURNING \(WebhookRecord.columns)
            """
        return try await database.transaction { connection in
            guard let row = try connection.query(statement).first else { return nil }
            try AuditLogStore.record(.webhookUpdated, target: id, appID: appID, by: audit, now: now, in: connection)
            return try WebhookRecord(row: row)
        }
    }

    /// The delete and its audit entry in one transaction.
    static func delete(id: String, appID: String, now: Double, audit: AuditStamp = .commandLine,
                       in database: PostgresPool) async throws -> Bool {
        try await database.transaction { connection in
            guard !(try connection.query("DELETE FROM webhooks WHERE id = \(id) AND app_id = \(appID) RETURNING id")).isEmpty
            else { return false }
            try AuditLogStore.record(.webhookDeleted, target: id, appID: appID, by: audit, now: now, in: connection)
            return true
        }
    }

    /// A new secret; the current one becomes `previous_secret` (moved as stored, sealed or not)
    /// and keeps signing for 24 hours.
    static func rotateSecret(id: String, appID: String, now: Double, sealing keyring: SecretKeyring = SecretKeyring(),
                             in database: PostgresPool) async throws -> (WebhookRecord, secret: String)? {
        let secret = newSecret()
        let rows = try await database.query("""
            UPDATE webhooks SET previous_secret = secret, secret = \(keyring.seal(secret)),
                   previous_secret_until = to_timestamp(\(now + previousSecretSeconds)), updated_at = to_timestamp(\(now))
            WHERE id = \(id) AND app_id = \(appID)
            RETURNING \(WebhookRecord.columns)
            """)
        return try rows.first.map { (try WebhookRecord(row: $0), secret) }
    }

    /// What `ping` did.
    enum PingOutcome: Sendable, Equatable {
        case queued(eventID: String)
        /// The endpoint queued `WebhookLimits.testsPerWindow` pings within the window: none now.
        case limited(retryAfter: Int)
    }

    /// The `rate_limit_events` bucket of one endpoint's test pings.
    static func testBucket(_ id: String) -> String { "webhook_test:" + id }

    /// Appends a `ping` for this endpoint only, admitted by its test-ping limit (kept in
    /// `rate_limit_events`, so it holds across processes) in the same transaction; nil when the
    /// app has no such endpoint.
    static func ping(id: String, appID: String, now: Double, in database: PostgresPool) async throws -> PingOutcome? {
        try await database.transaction { connection in
            guard try !connection.query("""
                SELECT enabled FROM webhooks WHERE id = \(id) AND app_id = \(appID) FOR SHARE
                """).isEmpty else { return nil }
            let limit = RateLimit(bucket: testBucket(id), limit: WebhookLimits.testsPerWindow, window: WebhookLimits.testWindow)
            guard try RateLimiter.admit(appID: appID, limit, now: now, in: connection) else {
                let sentAt = try connection.query("""
                    SELECT extract(epoch FROM at)::float8 AS at FROM rate_limit_events
                    WHERE app_id = \(appID) AND bucket = \(limit.bucket)
                    """).map { try $0.decode("at", as: Double.self) }
                return .limited(retryAfter: WebhookLimits.testRetryAfter(sentAt: sentAt, now: now) ?? 1)
            }
            try EventOutbox.append([OutboundEvent(type: .ping, appID: appID, data: [:], webhookID: id)], in: connection)
            let event = try connection.query("""
                SELECT id FROM events WHERE app_id = \(appID) AND webhook_id = \(id) AND xid = pg_current_xact_id()
                ORDER BY seq DESC LIMIT 1
                """)[0]
            return .queued(eventID: try event.decode("id"))
        }
    }
}
