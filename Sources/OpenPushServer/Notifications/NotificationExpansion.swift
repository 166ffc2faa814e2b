import OpenPushCore
import Postgres

/// Turns a due notification's audience definition into delivery rows, one page per call:
/// keyset pagination over subscription ids, one multi-row `INSERT … SELECT` per page, and the
/// cursor saved in the same transaction, so a crash loses nothing and duplicates nothing.
/// The message row is locked (`SKIP LOCKED`) while its page is written, so two workers never
/// expand the same message at once, and a cancel waits for the page in flight.
enum NotificationExpansion {
    static let defaultPageSize = 5000

    enum Step: Equatable {
        /// No message is due for expansion.
        case idle
        /// One page of a message was written (`rows` may be 0 on its last page).
        case expanded(messageID: String, rows: Int)
    }

    /// Call inside a transaction.
    static func expandNextPage(now: Double, pageSize: Int = defaultPageSize, in connection: PostgresConnection) throws -> Step {
        guard let row = try connection.query("""
            SELECT id, app_id, tenant_id, expanded_through, request::text AS request FROM messages
            WHERE expansion = 'pending' AND send_after <= to_timestamp(\(now))
            ORDER BY send_after, id LIMIT 1
            FOR UPDATE SKIP LOCKED
            """).first else { return .idle }
        let messageID: String = try row.decode("id")
        let appID: String = try row.decode("app_id")
        let request = (try? JSONValue.parse(try row.decode("request", as: String.self)))?.objectValue ?? [:]
        let send: NotificationSend
        let targeted: PostgresQuery
        do {
            send = try NotificationSendParser.parse(request).get()
            targeted = try AudienceResolver.targeted(send.targeting, appID: appID, tenantID: try row.decode("tenant_id"),
                                                     now: now, in: connection)
        } catch let error as APIError {
            // A segment deleted since the request, say: stop, and say why on the message.
            try connection.query("""
                UPDATE messages SET expansion = 'failed', expansion_error = \(error.messages.joined(separator: "; "))
                WHERE id = \(messageID)
                """)
            return .expanded(messageID: messageID, rows: 0)
        }
        let page = NotificationAudience.recipients(targeted: targeted, appID: appID, kind: send.kind,
                                                   after: try row.decode("expanded_through"))
        let written = try connection.query("""
            WITH page AS (\(page) LIMIT \(pageSize)),
            badges AS (\(badgeUpdate(send.badge))),
            queued AS (
                INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, token_kind, token, badge, state,
                                        next_attempt_at, created_at)
                SELECT gen_random_uuid(), \(messageID), \(appID), page.id, \(send.kind.tokenKind), page.token, badges.badge,
                       'queued', to_timestamp(\(now)), to_timestamp(\(now))
                FROM page LEFT JOIN badges ON badges.id = page.id
                ORDER BY page.id
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM queued)::int AS n, (SELECT max(id) FROM page) AS last
            """)[0]
        let rows: Int = try written.decode("n")
        let last: String? = try written.decode("last")
        try connection.query("""
            UPDATE messages SET
                expanded_through = COALESCE(\(last), expanded_through),
                audience_total = audience_total + \(rows),
                expansion = \(rows < pageSize ? "done" : "pending")
            WHERE id = \(messageID)
            """)
        if rows > 0 { try MessageStore.notifyWorkers(appID: appID, in: connection) }
        return .expanded(messageID: messageID, rows: rows)
    }

    /// The page's new badge numbers (`id`, `badge`): the per-subscription counter set or
    /// raised (never below 0, and saturating at `integer`'s largest value rather than
    /// overflowing it), or nothing when the notification leaves the badge alone.
    static func badgeUpdate(_ badge: NotificationBadge) -> PostgresQuery {
        switch badge {
        case .none:
            return "SELECT NULL::text AS id, NULL::int AS badge WHERE false"
        case .setTo(let count):
            return """
                UPDATE subscriptions s SET badge_count = \(count) FROM page WHERE s.id = page.id
                RETURNING s.id, s.badge_count AS badge
                """
        case .increase(let step):
            return """
                UPDATE subscriptions s SET badge_count = LEAST(GREATEST(s.badge_count::bigint + \(step), 0), 2147483647) FROM page WHERE s.id = page.id
                RETURNING s.id, s.badge_count AS badge
                """
        }
    }
}
