import OpenPushCore
import Postgres

/// An endpoint leased for one attempt: what sending needs, and the token that proves the lease.
struct WebhookClaim: Sendable {
    var id: String
    var appID: String
    var url: String
    var secret: String
    var previousSecret: String?
    /// Unix seconds.
    var previousSecretUntil: Double?
    var leaseToken: String
    /// The event types it takes (`*`: all), and where its cursor stood when it was leased.
    var events: [String] = ["*"]
    var cursor: EventPosition = .start
}

/// The dispatcher's SQL. Every due time and the 24 h window use PostgreSQL's clock (`now()`,
/// read through a `DatabaseClock`, which only tests move), so processes on different machines agree.
enum WebhookDispatchStore {
    /// The events still pending in row `e` for endpoint `w` (a row `PendingRows` keeps).
    static let pendingInRow: PostgresQuery = """
        CASE WHEN (e.xid, e.seq) = (w.cursor_xid, w.cursor_seq) THEN coalesce(e.batch_size, 1) - 1 - w.cursor_index
             ELSE coalesce(e.batch_size, 1) END
        """

    /// The rows of `events` (alias `e`) that hold an event pending for endpoint `w`, in three
    /// branches, each read from the cursor in an index that holds only what it takes, so the
    /// events of other types past the cursor — however many — are never read:
    /// - `typed`: rows of one subscribed type `t.type` (`unnest(w.events) AS t(type)`), through
    ///   `(app_id, type, xid, seq)`. Written as a range on `(type, xid, seq)` ordered by type
    ///   first, which only that index yields in order: with an equality on `type` the planner may
    ///   pick `(app_id, xid, seq)` and filter by type (it does when an app has a single type of
    ///   event), reading every event of the app past the cursor.
    /// - `pings`: the `ping`s queued for `w` alone, through `(webhook_id, xid, seq)`.
    /// - `all`: for `*`, every row of the app past the cursor but other endpoints' pings.
    /// A row is past the cursor when it is a later row, or the cursor's own row with members
    /// after its index (`StoredEvent.after`); only visible rows when `visibleOnly`.
    struct PendingRows {
        var typed: PostgresQuery
        var pings: PostgresQuery
        var all: PostgresQuery

        init(visibleOnly: Bool) {
            let visible: PostgresQuery = visibleOnly ? "AND e.\(StoredEvent.visible)" : ""
            let inRow: PostgresQuery = """
                (e.xid, e.seq, coalesce(e.batch_size, 1) - 1) > (w.cursor_xid, w.cursor_seq, w.cursor_index::int8) \(visible)
                """
            let after: PostgresQuery = "(e.xid, e.seq) >= (w.cursor_xid, w.cursor_seq) AND \(inRow)"
            typed = """
                e.app_id = w.app_id AND (e.type, e.xid, e.seq) >= (t.type, w.cursor_xid, w.cursor_seq) AND e.type <= t.type
                AND e.webhook_id IS NULL AND \(inRow)
                ORDER BY e.type, e.xid, e.seq
                """
            pings = "e.webhook_id = w.id AND e.app_id = w.app_id AND \(after) ORDER BY e.xid, e.seq"
            all = "'*' = ANY (w.events) AND e.app_id = w.app_id AND e.webhook_id IS NULL AND \(after) ORDER BY e.xid, e.seq"
        }
    }

    /// Endpoint `w` has an event pending (`PendingRows`): one seek per subscribed type and one
    /// for its pings, whatever its backlog of events it does not take.
    static func hasPending(visibleOnly: Bool) -> PostgresQuery {
        let rows = PendingRows(visibleOnly: visibleOnly)
        return """
            (EXISTS (SELECT 1 FROM unnest(w.events) AS t(type)
                     WHERE (SELECT e.seq FROM events AS e WHERE \(rows.typed) LIMIT 1) IS NOT NULL)
             OR (SELECT e.seq FROM events AS e WHERE \(rows.pings) LIMIT 1) IS NOT NULL
             OR (SELECT e.seq FROM events AS e WHERE \(rows.all) LIMIT 1) IS NOT NULL)
            """
    }

    /// Leases up to `limit` enabled endpoints that are due, not leased by anyone, and have a
    /// pending visible event, skipping rows other processes are claiming. Apps take turns: each
    /// app's oldest due endpoint first, then each app's second, and so on; and an app gets at
    /// most `perApp` minus what it already has in flight here (`busy`), so one app's slow
    /// endpoints never hold every slot of a process.
    static func claim(limit: Int, perApp: Int, busy: [String: Int] = [:], leaseSeconds: Double, token: String,
                      clock: DatabaseClock, in connection: PostgresConnection) throws -> [WebhookClaim] {
        let rows = try connection.query(prepared: claimStatement(limit: limit, perApp: perApp, busy: busy, leaseSeconds: leaseSeconds,
                                                                 token: token, clock: clock))
        return try rows.map { row in
            WebhookClaim(id: try row.decode("id"), appID: try row.decode("app_id"), url: try row.decode("url"),
                         secret: try row.decode("secret"), previousSecret: try row.decode("previous_secret"),
                         previousSecretUntil: try row.decode("previous_secret_until"), leaseToken: token,
                         events: try row.decode("events"),
                         cursor: EventPosition(xid: try row.decode("cursor_xid"), seq: try row.decode("cursor_seq"),
                                               index: try row.decode("cursor_index")))
        }
    }

    /// `claim`'s statement (tests read its plan).
    static func claimStatement(limit: Int, perApp: Int, busy: [String: Int], leaseSeconds: Double, token: String,
                               clock: DatabaseClock) -> PostgresQuery {
        let now = clock.sql
        let busyApps = Array(busy.keys)
        let busyCounts = busyApps.map { busy[$0] ?? 0 }
        let claimable: PostgresQuery = """
            w.enabled AND w.next_attempt_at <= \(now) AND (w.lease_until IS NULL OR w.lease_until < \(now))
            """
        return """
            UPDATE webhooks AS leased
            SET lease_token = \(token), lease_until = \(now) + make_interval(secs => \(leaseSeconds))
            FROM (SELECT w.id FROM webhooks AS w
                  WHERE w.id IN (
                          SELECT c.id FROM (
                              SELECT w.id, w.next_attempt_at,
                                     row_number() OVER (PARTITION BY w.app_id ORDER BY w.next_attempt_at, w.id) AS turn,
                                     \(perApp) - coalesce((\(busyCounts)::int[])[array_position(\(busyApps)::text[], w.app_id)], 0) AS room
                              FROM webhooks AS w
                              WHERE \(claimable) AND \(hasPending(visibleOnly: true))) AS c
                          WHERE c.turn <= c.room
                          ORDER BY c.turn, c.next_attempt_at
                          LIMIT \(limit))
                    AND \(claimable)
                  FOR UPDATE OF w SKIP LOCKED) AS due
            WHERE leased.id = due.id
            RETURNING leased.id, leased.app_id, leased.url, leased.secret, leased.previous_secret,
                      extract(epoch FROM leased.previous_secret_until)::float8 AS previous_secret_until, leased.events,
                      leased.cursor_xid::text::int8 AS cursor_xid, leased.cursor_seq, leased.cursor_index::int8 AS cursor_index
            """
    }

    /// Moves the cursor of every enabled endpoint that nobody holds and that has no visible
    /// event pending to its app's newest visible event: the events it passes are ones it does not
    /// take. An endpoint subscribed to types the app never produces then never has a backlog to
    /// read past (for the due query, the pending gauge, its next batch). Safe to pass them: every
    /// event still to commit has an xid at or above the visibility bound, so past the newest
    /// visible one. Returns how many cursors moved.
    @discardableResult
    static func skipUnwanted(clock: DatabaseClock, in connection: PostgresConnection) throws -> Int {
        let now = clock.sql
        return try connection.query(prepared: """
            UPDATE webhooks AS moved
            SET cursor_xid = skip.xid, cursor_seq = skip.seq, cursor_index = \(EventPosition.wholeRow)::int4
            FROM (SELECT w.id, newest.xid, newest.seq FROM webhooks AS w
                  CROSS JOIN LATERAL (SELECT e.xid, e.seq FROM events AS e
                                      WHERE e.app_id = w.app_id AND e.\(StoredEvent.visible)
                                      ORDER BY e.xid DESC, e.seq DESC LIMIT 1) AS newest
                  WHERE w.enabled AND (w.lease_until IS NULL OR w.lease_until < \(now))
                    AND (newest.xid, newest.seq, \(EventPosition.wholeRow)::int8) > (w.cursor_xid, w.cursor_seq, w.cursor_index::int8)
                    AND NOT \(hasPending(visibleOnly: true))
                  FOR UPDATE OF w SKIP LOCKED) AS skip
            WHERE moved.id = skip.id
            """).affectedRows
    }

    /// The endpoint's next events after `position` (where the lease found its cursor, then what
    /// this attempt has sent), in reading order, at most `limit`; compact rows are expanded.
    static func batch(for claim: WebhookClaim, after position: EventPosition, limit: Int,
                      in connection: PostgresConnection) throws -> [StoredEvent] {
        let takes: PostgresQuery = """
            app_id = \(claim.appID) AND (webhook_id = \(claim.id)
                OR (webhook_id IS NULL AND ('*' = ANY (\(claim.events)::text[]) OR type = ANY (\(claim.events)::text[]))))
            AND \(StoredEvent.visible)
            """
        let rows = try connection.query(StoredEvent.page(where: takes, after: position, limit: limit))
        return try StoredEvent.expand(rows, after: position, limit: limit)
    }

    /// A 2xx: the cursor moves past what was sent, the failure streak ends, and the lease is
    /// released — or renewed for `renewingLeaseFor` seconds when the same attempt sends the next
    /// batch. False when the lease was lost (another process took the endpoint over).
    @discardableResult
    static func recordSuccess(_ claim: WebhookClaim, last: EventPosition, renewingLeaseFor renewal: Double? = nil,
                              clock: DatabaseClock, in connection: PostgresConnection) throws -> Bool {
        let now = clock.sql
        let token: PostgresQuery = renewal == nil ? "NULL" : "lease_token"
        let until: PostgresQuery = renewal.map { "\(now) + make_interval(secs => \($0))" } ?? "NULL"
        let sent: PostgresQuery = "(\(String(last.xid))::xid8, \(last.seq)::int8, \(last.index)::int8)"
        let cursor: PostgresQuery = "(cursor_xid, cursor_seq, cursor_index::int8)"
        return try connection.query("""
            UPDATE webhooks SET
                cursor_xid = CASE WHEN \(sent) > \(cursor) THEN \(String(last.xid))::xid8 ELSE cursor_xid END,
                cursor_seq = CASE WHEN \(sent) > \(cursor) THEN \(last.seq) ELSE cursor_seq END,
                cursor_index = CASE WHEN \(sent) > \(cursor) THEN \(last.index)::int4 ELSE cursor_index END,
                last_success_at = \(now),
                failed_attempts = 0, failing_since = NULL, next_attempt_at = \(now),
                lease_token = \(token), lease_until = \(until), updated_at = \(now)
            WHERE id = \(claim.id) AND lease_token = \(claim.leaseToken)
            """).affectedRows == 1
    }

    /// Nothing to send after all (another process sent it, or the events were dropped).
    static func release(_ claim: WebhookClaim, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE webhooks SET lease_token = NULL, lease_until = NULL
            WHERE id = \(claim.id) AND lease_token = \(claim.leaseToken)
            """)
    }

    /// What a failed attempt did to the endpoint.
    enum FailureOutcome: Sendable, Equatable {
        /// Tried again this many seconds from now.
        case retry(after: Double)
        /// Failing for longer than the window: disabled, its pending events dropped.
        case disabled(reason: String)
        /// The lease was lost (taken over after expiring): nothing recorded.
        case leaseLost
    }

    /// Where the endpoint's failure streak stands before this failure is recorded, and the
    /// clock's time: what `WebhookRetrySchedule.afterFailure` decides from. Nil when the lease was lost.
    static func failureStreak(_ claim: WebhookClaim, clock: DatabaseClock,
                              in connection: PostgresConnection) throws
        -> (previousFailures: Int, failingSince: Double?, now: Double)? {
        guard let row = try connection.query("""
            SELECT failed_attempts, extract(epoch FROM failing_since)::float8 AS failing_since,
                   extract(epoch FROM \(clock.sql))::float8 AS now
            FROM webhooks WHERE id = \(claim.id) AND lease_token = \(claim.leaseToken)
            """).first else { return nil }
        return (try row.decode("failed_attempts"), try row.decode("failing_since"), try row.decode("now"))
    }

    /// Records a failure as `decision` says: retried after its delay, or disabled with its
    /// pending events dropped (the cursor moves to the app's newest event) and its streak reset,
    /// so re-enabling starts afresh.
    static func recordFailure(_ claim: WebhookClaim, status: Int?, reason: String, decision: WebhookRetrySchedule.Decision,
                              clock: DatabaseClock, in connection: PostgresConnection) throws -> FailureOutcome {
        let now = clock.sql
        let disable = decision == .disable
        let delay: Double = if case .retry(let after) = decision { after } else { 0 }
        let disabledReason = WebhookRetrySchedule.disabledReason(lastFailure: reason)
        // Dropping the pending events: the cursor jumps to the app's newest.
        let newest = StoredEvent.newestPosition(appID: claim.appID)
        let rows = try connection.query("""
            UPDATE webhooks SET
                last_failure_at = \(now), last_failure_status = \(status), last_failure_reason = \(reason),
                failed_attempts = CASE WHEN \(disable) THEN 0 ELSE failed_attempts + 1 END,
                failing_since = CASE WHEN \(disable) THEN NULL ELSE coalesce(failing_since, \(now)) END,
                next_attempt_at = \(now) + make_interval(secs => \(delay)),
                enabled = enabled AND NOT \(disable),
                disabled_reason = CASE WHEN \(disable) THEN \(disabledReason) ELSE disabled_reason END,
                cursor_xid = CASE WHEN \(disable) THEN \(newest.xid) ELSE cursor_xid END,
                cursor_seq = CASE WHEN \(disable) THEN \(newest.seq) ELSE cursor_seq END,
                cursor_index = CASE WHEN \(disable) THEN \(EventPosition.wholeRow)::int4 ELSE cursor_index END,
                lease_token = NULL, lease_until = NULL, updated_at = \(now)
            WHERE id = \(claim.id) AND lease_token = \(claim.leaseToken)
            RETURNING id
            """)
        guard !rows.isEmpty else { return .leaseLost }
        return disable ? .disabled(reason: disabledReason) : .retry(after: delay)
    }

    /// Seconds until an enabled endpoint with pending events may be attempted (its next attempt,
    /// or the end of another process's lease); nil when none has pending events. Pending here
    /// ignores visibility, so an event whose transaction is still settling is looked at again soon.
    /// Apps in `excluding` (at their share of this process's slots) are not looked at: a slot
    /// of theirs freeing wakes the dispatcher anyway.
    static func secondsUntilNextDue(excluding: [String] = [], clock: DatabaseClock,
                                    in connection: PostgresConnection) throws -> Double? {
        let rows = try connection.query(prepared: """
            SELECT extract(epoch FROM min(greatest(w.next_attempt_at, coalesce(w.lease_until, w.next_attempt_at))) - \(clock.sql))::float8
                   AS seconds
            FROM webhooks AS w
            WHERE w.enabled AND w.app_id <> ALL (\(excluding)::text[]) AND \(hasPending(visibleOnly: false))
            """)
        return try rows.first?.decode("seconds", as: Double?.self)
    }

    /// Pending events per app across its enabled endpoints, for `/metrics` (refreshed by the
    /// maintenance loop, never per scrape): each endpoint's are counted from its cursor through
    /// the indexes `PendingRows` reads (a compact row counts for its members past the cursor), at
    /// most `cap` rows per branch, so it costs what the backlog costs, never the history or the
    /// events an endpoint does not take.
    static func pendingByApp(cap: Int = 100_000, in pool: PostgresPool) async throws -> [(app: String, pending: Int64)] {
        let rows = PendingRows(visibleOnly: false)
        return try await pool.query("""
            SELECT w.app_id, sum(typed.n + pings.n + every.n)::int8 AS pending FROM webhooks AS w
            CROSS JOIN LATERAL (SELECT coalesce(sum(capped.n), 0) AS n FROM unnest(w.events) AS t(type)
                                CROSS JOIN LATERAL (SELECT \(pendingInRow) AS n FROM events AS e
                                                    WHERE \(rows.typed) LIMIT \(cap)) AS capped) AS typed
            CROSS JOIN LATERAL (SELECT coalesce(sum(capped.n), 0) AS n
                                FROM (SELECT \(pendingInRow) AS n FROM events AS e WHERE \(rows.pings) LIMIT \(cap)) AS capped) AS pings
            CROSS JOIN LATERAL (SELECT coalesce(sum(capped.n), 0) AS n
                                FROM (SELECT \(pendingInRow) AS n FROM events AS e WHERE \(rows.all) LIMIT \(cap)) AS capped) AS every
            WHERE w.enabled
            GROUP BY w.app_id ORDER BY w.app_id
            """).map { (try $0.decode("app_id"), try $0.decode("pending")) }
    }
}
