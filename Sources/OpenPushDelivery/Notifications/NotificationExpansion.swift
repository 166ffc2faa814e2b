import OpenPushCore
import Postgres

/// Turns a due notification's audience definition into delivery jobs, one page per call:
/// keyset pagination over subscription ids, one statement per page, and the cursor saved in the
/// same transaction, so a crash loses nothing and duplicates nothing. The message row is locked
/// (`SKIP LOCKED`) while its page is written, so two workers never expand the same message at
/// once, and a cancel waits for the page in flight.
///
/// Failure is per message: a page that throws is rolled back to a savepoint and the message
/// tried again later, then failed with its reason; no other message waits for it.
enum NotificationExpansion {
    /// Two jobs of `DeliveryQueue.defaultJobSize`: a page's last job is not a short one.
    static let defaultPageSize = 4000
    /// Tries of a page that throws before its message is failed.
    static let maximumAttempts = 3

    enum Step: Equatable {
        /// No message is due for expansion.
        case idle
        /// One page of a message was written (`rows` may be 0 on its last page).
        case expanded(messageID: String, rows: Int)
        /// The page failed; the message is retried later or, after `maximumAttempts` (`final`), failed.
        case failed(messageID: String, final: Bool, reason: String)
    }

    /// Call inside a transaction.
    static func expandNextPage(pageSize: Int = defaultPageSize, jobSize: Int = DeliveryQueue.defaultJobSize,
                               in connection: PostgresConnection) throws -> Step {
        guard let row = try connection.query("""
            SELECT id, app_id, tenant_id, expanded_through, expansion_attempts, extract(epoch FROM now())::float8 AS now,
                   \(StoredMessage.columns) FROM messages
            WHERE expansion = 'pending' AND send_after <= now() AND (expansion_retry_at IS NULL OR expansion_retry_at <= now())
            ORDER BY send_after, id LIMIT 1
            FOR UPDATE SKIP LOCKED
            """).first else { return .idle }
        let messageID: String = try row.decode("id")
        try connection.query("SAVEPOINT expansion")
        do {
            let rows = try expand(row, messageID: messageID, pageSize: pageSize, jobSize: jobSize, in: connection)
            try connection.query("RELEASE SAVEPOINT expansion")
            return .expanded(messageID: messageID, rows: rows)
        } catch {
            try connection.query("ROLLBACK TO SAVEPOINT expansion")
            let reason = failureReason(error)
            let final = try recordFailure(messageID: messageID, attempts: try row.decode("expansion_attempts") + 1, error: error,
                                          reason: reason, in: connection)
            return .failed(messageID: messageID, final: final, reason: reason)
        }
    }

    private static func expand(_ row: PostgresRow, messageID: String, pageSize: Int, jobSize: Int,
                               in connection: PostgresConnection) throws -> Int {
        let appID: String = try row.decode("app_id")
        let send = try StoredMessage.notification(row, messageID: messageID)
        // PostgreSQL's clock (read with the row), the one every worker shares.
        let targeted = try AudienceResolver.targeted(send.targeting, appID: appID, tenantID: try row.decode("tenant_id"),
                                                     now: try row.decode("now"), in: connection)
        let page = NotificationAudience.recipients(targeted: targeted, appID: appID, kind: send.kind,
                                                   excluding: send.excludedServices, browsers: send.excludedBrowsers, after: try row.decode("expanded_through"))
        let lane = DeliveryLane.forNotification(interruptionLevel: send.interruptionLevel, kind: send.kind)
        let schedule = try ExpansionSchedule.prepare(
            send.schedule, messageID: messageID,
            audience: NotificationAudience.recipients(targeted: targeted, appID: appID, kind: send.kind,
                                                      excluding: send.excludedServices, browsers: send.excludedBrowsers, after: nil),
            in: connection)
        let jobs = schedule.jobs(from: "r", messageID: messageID, appID: appID, lane: lane, tokenKind: send.kind.tokenKind,
                                 jobSize: jobSize)
        // The page's rows in the order it read them (by id); a schedule's slots and due times
        // number them (`ord`). Numbering them by id again sorted text keys that share a prefix.
        // The cursor and the audience count move in the same statement, and the workers are
        // woken when it queued anyone.
        let written = try connection.query("""
            WITH page AS (\(page) LIMIT \(pageSize)),
            badges AS (\(badgeUpdate(send.badge))),
            r AS (
                SELECT page.id AS subscription_id, page.token, NULL::text AS live_activity_id, badges.badge,
                       row_number() OVER () AS ord
                FROM page LEFT JOIN badges ON badges.id = page.id
            ),
            \(jobs),
            queued AS (SELECT COALESCE(sum(n), 0)::int AS n, (SELECT max(id) FROM page) AS last FROM jobs),
            advanced AS (
                UPDATE messages SET
                    expanded_through = COALESCE(queued.last, expanded_through),
                    audience_total = audience_total + queued.n,
                    expansion_retry_at = NULL
                FROM queued WHERE id = \(messageID)
                RETURNING 1
            ),
            woken AS MATERIALIZED (
                SELECT pg_notify(\(MessageStore.deliveryChannel), \(appID)) FROM queued WHERE queued.n > 0
            )
            SELECT queued.n, (SELECT count(*) FROM advanced)::int AS moved, (SELECT count(*) FROM woken)::int AS woken
            FROM queued
            """)[0]
        let rows: Int = try written.decode("n")
        // The last page ends the expansion: every job of the earlier pages may have finished already.
        try MessageLifecycleStore.apply(.expansionPageWritten(last: rows < pageSize), messageID: messageID, in: connection)
        return rows
    }

    /// A request error (a segment deleted since the send, say) or a stored send that does not
    /// decode will not pass: the message fails at once. Anything else is tried again after a
    /// backoff, `maximumAttempts` times in all. Returns whether the message is now failed for good.
    private static func recordFailure(messageID: String, attempts: Int, error: any Error, reason: String,
                                      in connection: PostgresConnection) throws -> Bool {
        let final = APIError.answering(error) != nil || error is UndecodableMessage || attempts >= maximumAttempts
        try connection.query("""
            UPDATE messages SET
                expansion_attempts = \(attempts),
                expansion_retry_at = now() + make_interval(secs => \(retryDelay(afterAttempt: attempts)))
            WHERE id = \(messageID)
            """)
        try MessageLifecycleStore.apply(.expansionFailed(reason: reason, final: final), messageID: messageID, in: connection)
        return final
    }

    static func failureReason(_ error: any Error) -> String {
        APIError.answering(error)?.messages.joined(separator: "; ") ?? (error as? UndecodableMessage)?.reason ?? String(describing: error)
    }

    /// Seconds before a failed page is tried again: 10 s, 20 s, … at most 10 minutes.
    static func retryDelay(afterAttempt attempt: Int) -> Double {
        min(600, 5 * Double(1 << min(max(attempt, 1), 10)))
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
