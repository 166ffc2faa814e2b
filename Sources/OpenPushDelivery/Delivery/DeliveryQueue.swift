package import OpenPushCore
package import Postgres

/// The queue of delivery jobs: written by sends and expansions, leased by workers, completed in
/// one transaction that appends each device's record. Every time here is PostgreSQL's clock, so
/// workers on several machines agree on leases and due times.
package enum DeliveryQueue {
    /// Short on purpose: a Live Activity push minutes late is worthless, so a job a dead worker
    /// held must come back quickly. Renewed while the job is in flight.
    package static let defaultLeaseSeconds: Double = 30
    /// Recipients per job: large enough that a job's bookkeeping is cheap per push, small enough
    /// that one app's fan-out is many jobs that other apps' jobs can pass. 2,000 rather than
    /// 1,000: in three interleaved pairs of bench/delivery.sh, worker + PostgreSQL CPU per push
    /// against the simulator's fell from 2.27–2.37 to 2.06–2.11, with live latency alike.
    package static let defaultJobSize = 2000
    /// How a worker's leases and job completions commit: without waiting for the WAL flush. Each
    /// is a step that is taken again when lost: a lease lost in a PostgreSQL crash frees its job,
    /// and a lost completion (its records, counts, retries and events go together) leaves the job
    /// to be run again — at-least-once, as after a worker's `kill -9`. Sends accepted by the API
    /// are flushed as always. Waiting for flushes while holding the message row and the app's
    /// turn made the jobs of one fan-out wait for each other's disk writes.
    package static let bookkeeping: CommitDurability = .deferred

    /// Leases the job to run next, or nil when none is due. The urgent lane first; within a lane
    /// the app with the fewest jobs in flight, then the app served longest ago (apps take
    /// turns), then the oldest due. An app holding `appCap`
    /// jobs already waits, so one tenant's fan-out never takes every worker. Jobs of paused apps
    /// wait for their credentials to be fixed.
    package static func claim(worker: String, leaseSeconds: Double = defaultLeaseSeconds, appCap: Int,
                             in connection: PostgresConnection) throws -> DeliveryJob? {
        try claimNext(worker: worker, leaseSeconds: leaseSeconds, appCap: appCap, in: connection).job
    }

    /// What one claim statement tells a worker: the jobs it leased (one batch, or none), whether
    /// a notification is due for expansion (so a worker runs the expansion transaction only when
    /// there is one), and, when it leased nothing, how long nothing comes due.
    package struct Claim: Sendable {
        /// One app's and lane's, oldest first; empty when nothing was due.
        package var jobs: [DeliveryJob]
        package var expansionDue: Bool
        /// With no job: seconds until a job comes due or a lease runs out (nil: nothing waits),
        /// so an idle worker knows how long to sleep without another query.
        package var secondsUntilNextDue: Double?

        package var job: DeliveryJob? { jobs.first }

        /// Whether due jobs may have been left behind by this claim's bounds (`maxJobs`, or
        /// `maxRecipients`: another job the size of its smallest would not have fitted), so
        /// another loop should look. A claim within both took every due job of its app and
        /// lane; other apps' jobs each came with a wake-up of their own.
        package func mayHaveLeftJobs(maxJobs: Int, maxRecipients: Int) -> Bool {
            guard let smallest = jobs.map(\.recipients.count).min() else { return false }
            return jobs.count >= maxJobs || jobs.reduce(0) { $0 + $1.recipients.count } + smallest > maxRecipients
        }
    }

    /// Jobs leased by one claim at most (`claimNext`): enough that a burst of one-user messages
    /// shares a claim and a completion, few enough that a batch's recipients load in one go.
    package static let defaultBatchJobs = 128

    /// `claim` as one statement, safe outside a transaction (it commits on its own): one round
    /// trip per batch. Up to `maxJobs` jobs of one app and lane whose recipients add up to at most
    /// `maxRecipients` (device jobs only; a larger first job is a batch alone), leased together:
    /// they count as one job in flight toward `appCap`.
    package static func claimNext(worker: String, leaseSeconds: Double = defaultLeaseSeconds, appCap: Int,
                                 maxJobs: Int = 1, maxRecipients: Int = defaultJobSize,
                                 in connection: PostgresConnection) throws -> Claim {
        // `openpush_claim_batch` (migration 0048): a function, so its plans are kept per connection.
        // A lease lost in a server crash is a job another worker runs again (`bookkeeping`).
        let rows = try connection.query(prepared: """
            SELECT * FROM openpush_claim_batch(\(worker), \(leaseSeconds)::float8, \(appCap), \(maxJobs), \(maxRecipients))
            """, durability: bookkeeping)
        let expansionDue: Bool = try rows[0].decode("expansion_due")
        guard !rows[0].isNull("id") else {
            return Claim(jobs: [], expansionDue: expansionDue, secondsUntilNextDue: try rows[0].decode("next_due"))
        }
        let jobs = try rows.map(job).sorted { $0.id < $1.id }
        return Claim(jobs: jobs, expansionDue: expansionDue, secondsUntilNextDue: nil)
    }

    static func job(_ row: PostgresRow) throws -> DeliveryJob {
        let kind: String = try row.decode("token_kind")
        guard let tokenKind = TokenKind(rawValue: kind) else { throw InvariantViolation("a job holds token kind '\(kind)'") }
        let subscriptions: [String] = try row.decode("subscription_ids")
        // A device or widget job queued before migration 0043 still holds tokens: they go unread.
        let tokens: [String?] = tokenKind.isReadWhenSent ? Array(repeating: nil, count: subscriptions.count) : try row.decode("tokens")
        guard tokens.count == subscriptions.count else {
            throw InvariantViolation("a \(kind) job holds \(tokens.count) tokens for \(subscriptions.count) recipients")
        }
        let activities: [String?]? = try row.decode("live_activity_ids")
        let badges: [Int?]? = try row.decode("badges")
        let recipients = subscriptions.indices.map { index in
            DeliveryJob.Recipient(subscriptionID: subscriptions[index], token: tokens[index],
                                  liveActivityID: activities.flatMap { index < $0.count ? $0[index] : nil },
                                  badge: badges.flatMap { index < $0.count ? $0[index] : nil })
        }
        let stored: Int = try row.decode("lane")
        guard let lane = DeliveryLane(rawValue: stored) else { throw InvariantViolation("a job holds lane \(stored)") }
        return DeliveryJob(id: try row.decode("id"), messageID: try row.decode("message_id"), appID: try row.decode("app_id"),
                           lane: lane, tokenKind: tokenKind,
                           attempt: try row.decode("attempt"), recipients: recipients, createdAt: try row.decode("created_at"))
    }

    /// Keeps a slow job from being leased by someone else.
    /// False when the job is no longer leased by `worker` (another worker took it, or it is
    /// done): the caller must stop working on it.
    @discardableResult
    package static func renewLease(jobID: Int64, worker: String, leaseSeconds: Double = defaultLeaseSeconds,
                                  in connection: PostgresConnection) throws -> Bool {
        try renewLease(jobIDs: [jobID], worker: worker, leaseSeconds: leaseSeconds, in: connection)
    }

    /// Renews every job of a batch in one statement; false when any of them is no longer leased
    /// by `worker`: the other worker sends that one, so this one stops sending the batch.
    @discardableResult
    package static func renewLease(jobIDs: [Int64], worker: String, leaseSeconds: Double = defaultLeaseSeconds,
                                  in connection: PostgresConnection) throws -> Bool {
        try connection.query(prepared: """
            UPDATE delivery_jobs SET leased_until = now() + make_interval(secs => \(leaseSeconds))
            WHERE id = ANY(\(jobIDs)::int8[]) AND leased_by = \(worker)
            """, durability: bookkeeping).affectedRows == jobIDs.count
    }

    /// Queues the rows of `recipients` (a query yielding `subscription_id`, `token`,
    /// `live_activity_id` and `badge`, in the order to send) as jobs of `jobSize`. Returns how
    /// many recipients were queued.
    @discardableResult
    package static func enqueue(messageID: String, appID: String, lane: DeliveryLane, tokenKind: TokenKind,
                               recipients: PostgresQuery, jobSize: Int = defaultJobSize,
                               in connection: PostgresConnection) throws -> Int {
        let insert = jobsInsert(from: "r", messageID: messageID, appID: appID, lane: lane, tokenKind: tokenKind, jobSize: jobSize)
        return try connection.query("""
            WITH r AS (\(recipients)),
            jobs AS (\(insert))
            SELECT COALESCE(sum(n), 0)::int AS n FROM jobs
            """)[0].decode("n")
    }

    /// The `INSERT` that cuts the rows of the CTE `source` (`subscription_id`, `token`,
    /// `live_activity_id` and `badge`, in the order to send) into jobs of `jobSize`, returning
    /// each job's size as `n`. The rows are aggregated once, in the order the CTE yields them
    /// (the order they went in), into one array per column, and each job takes a slice of
    /// each: every recipient lands in exactly one job, and entry i of every array is the same
    /// recipient (all four take the rows in the same pass). Sorting the rows by job and
    /// grouping them, with the page's own sort by id and its join back to `subscriptions`, cost
    /// a 4,000-device expansion page 8.8 ms of PostgreSQL's time against 5.2 ms (interleaved
    /// pgbench runs).
    static func jobsInsert(from source: String, messageID: String, appID: String, lane: DeliveryLane, tokenKind: TokenKind,
                           jobSize: Int) -> PostgresQuery {
        let (tokens, tokensAggregate): (PostgresQuery, PostgresQuery) = tokenKind.isReadWhenSent
            ? (noTokens, "NULL::text[]") : ("a.tokens[j.first:j.last]", "array_agg(s.token)")
        return """
            INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, subscription_ids, tokens, live_activity_ids, badges,
                                       recipients)
            SELECT \(messageID), \(appID), \(lane.rawValue), \(tokenKind.rawValue), a.ids[j.first:j.last], \(tokens),
                   a.activities[j.first:j.last], a.badges[j.first:j.last],
                   least(j.last, cardinality(a.ids)) - j.first + 1
            FROM (SELECT array_agg(s.subscription_id) AS ids, \(tokensAggregate) AS tokens,
                         array_agg(s.live_activity_id) AS activities, array_agg(s.badge) AS badges
                  FROM \(identifier: source) AS s) AS a,
                 LATERAL (SELECT g * \(jobSize) + 1 AS first, (g + 1) * \(jobSize) AS last
                          FROM generate_series(0, (cardinality(a.ids) - 1) / \(jobSize)) AS g) AS j
            RETURNING cardinality(subscription_ids) AS n
            """
    }

    /// A job's four recipient arrays, from input sorted by job and then by send order (the jobs
    /// of scheduled sends, grouped by due time as well as by size). One
    /// sort of the input, not one per array: `array_agg(… ORDER BY ord)` sorted each array's
    /// rows again (PostgreSQL 15 does not see that its input is sorted already). Every array
    /// takes the group's rows in the same pass, so entry i of each is the same recipient.
    /// Device and widget jobs hold no tokens (`TokenKind.isReadWhenSent`): at 65 bytes a
    /// token was most of a job's bytes, written, read back and vacuumed for nothing.
    static func aggregatedRecipients(_ tokenKind: TokenKind) -> PostgresQuery {
        let tokens: PostgresQuery = tokenKind.isReadWhenSent ? noTokens : "array_agg(s.token)"
        return "array_agg(s.subscription_id), \(tokens), array_agg(s.live_activity_id), array_agg(s.badge)"
    }

    /// The `tokens` of a device or widget job (`TokenKind.isReadWhenSent`, migration 0043).
    static let noTokens: PostgresQuery = "'{}'::text[]"

    /// Fails a message that cannot be built: it says why, and its recipients — in this job and
    /// every other — are recorded `error` with `MessageFailed`, so nothing of it is tried again.
    package static func fail(messageID: String, reason: String, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE messages SET failed_reason = COALESCE(failed_reason, \(reason)),
                   expansion = CASE WHEN expansion = 'pending' THEN 'failed' ELSE expansion END,
                   expansion_error = CASE WHEN expansion = 'pending' THEN \(reason) ELSE expansion_error END
            WHERE id = \(messageID)
            """)
        try removeJobs(of: messageID, onlyWaiting: false, recordingEach: .error, reason: "MessageFailed", in: connection)
    }

    static func isCancelled(_ messageID: String, in connection: PostgresConnection) throws -> Bool {
        // The lock waits for a cancel in flight (it holds the message row) to commit first. It is
        // the one the counts UPDATE later in the same completion takes: with FOR SHARE, two
        // completions of one message each held a share and then waited for the other's to add
        // their counts (a deadlock, and one job's pushes sent again after its lease).
        try connection.query(prepared: """
            SELECT cancelled_at IS NOT NULL AS cancelled FROM messages WHERE id = \(messageID) FOR NO KEY UPDATE
            """).first?.decode("cancelled") ?? true
    }

    /// Drops the message's jobs no worker holds, recording their recipients `cancelled`. A job
    /// in flight finishes its pushes; its retries are dropped when it completes.
    package static func cancel(messageID: String, in connection: PostgresConnection) throws {
        try removeJobs(of: messageID, onlyWaiting: true, recordingEach: .cancelled, reason: nil, in: connection)
    }

    /// Deletes the message's jobs — all, or only those no worker holds — and records each of
    /// their recipients once, adding them to the message's counts, in one statement.
    private static func removeJobs(of messageID: String, onlyWaiting: Bool, recordingEach state: DeliveryState,
                                   reason: String?, in connection: PostgresConnection) throws {
        try connection.query("""
            WITH gone AS (
                DELETE FROM delivery_jobs
                WHERE message_id = \(messageID) AND (NOT \(onlyWaiting) OR leased_until IS NULL OR leased_until <= now())
                RETURNING id, message_id, app_id, token_kind, attempt, subscription_ids, live_activity_ids
            ), inserted AS (
                -- Each record's id as `DeliveryRecord.id(jobID:position:)` makes it.
                INSERT INTO delivery_rows (id, message_id, app_id, subscription_id, live_activity_id, token_kind, state,
                                          attempts, error_reason, finished_at)
                OVERRIDING SYSTEM VALUE
                SELECT (g.id << \(Int32(DeliveryRecord.positionBits))) | (r.position - 1), g.message_id, g.app_id,
                       r.subscription_id, r.live_activity_id, g.token_kind, \(state.rawValue), g.attempt - 1, \(reason), now()
                FROM gone g, unnest(g.subscription_ids, g.live_activity_ids) WITH ORDINALITY
                     AS r(subscription_id, live_activity_id, position)
                RETURNING message_id, subscription_id, state, error_reason, finished_at
            )
            """ + DeliveryCounts.addInserted())
    }

    /// Seconds until a job comes due or a lease runs out (nil: nothing is waiting), so an idle
    /// worker sleeps until then instead of polling. Paused apps' jobs wait for a `PUT`, which
    /// notifies.
    package static func secondsUntilNextDue(in connection: PostgresConnection) throws -> Double? {
        try connection.query(prepared: """
            SELECT extract(epoch FROM least(
                (SELECT min(due_at) FROM delivery_jobs
                 WHERE leased_until IS NULL AND app_id NOT IN (SELECT id FROM apps WHERE apns_paused_at IS NOT NULL)),
                (SELECT min(leased_until) FROM delivery_jobs WHERE leased_until IS NOT NULL),
                (SELECT min(GREATEST(send_after, COALESCE(expansion_retry_at, send_after))) FROM messages
                 WHERE expansion = 'pending')
            ) - now())::float8 AS wait
            """)[0].decode("wait")
    }

    /// Recipients of a message still waiting in jobs (leased or not): all of them, or that one
    /// device's entries.
    package static func waitingRecipients(of messageID: String, subscriptionID: String?, in connection: PostgresConnection) throws -> Int {
        if let subscriptionID {
            return try connection.query("""
                SELECT count(*)::int AS n FROM delivery_jobs j, unnest(j.subscription_ids) AS r(subscription_id)
                WHERE j.message_id = \(messageID) AND r.subscription_id = \(subscriptionID)
                """)[0].decode("n")
        }
        return try connection.query("""
            SELECT COALESCE(sum(cardinality(subscription_ids)), 0)::int AS n FROM delivery_jobs WHERE message_id = \(messageID)
            """)[0].decode("n")
    }

    /// Recipients waiting to be sent (in jobs), for `/metrics`: the jobs table holds only
    /// work in progress, so this reads a few thousand rows at most, not every delivery made.
    package static func depth(in database: PostgresPool) async throws -> Int {
        try await database.query("""
            SELECT COALESCE(sum(cardinality(subscription_ids)), 0)::int AS n FROM delivery_jobs
            """)[0].decode("n")
    }
}
