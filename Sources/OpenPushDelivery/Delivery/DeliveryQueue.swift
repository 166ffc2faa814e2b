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

    /// What one claim statement tells a worker: the job it leased, and whether a notification
    /// is due for expansion (so a worker runs the expansion transaction only when there is one).
    package struct Claim: Sendable {
        package var job: DeliveryJob?
        package var expansionDue: Bool
    }

    /// `claim` as one statement, safe outside a transaction (it commits on its own): one round
    /// trip per job instead of four, which is most of a claim's cost on a loaded machine.
    package static func claimNext(worker: String, leaseSeconds: Double = defaultLeaseSeconds, appCap: Int,
                                 in connection: PostgresConnection) throws -> Claim {
        // `openpush_claim_job` (migration 0036): a function, so its plans are kept per connection.
        // A lease lost in a server crash is a job another worker runs again (`bookkeeping`).
        let row = try connection.query(prepared: """
            SELECT * FROM openpush_claim_job(\(worker), \(leaseSeconds)::float8, \(appCap))
            """, durability: bookkeeping)[0]
        let expansionDue: Bool = try row.decode("expansion_due")
        guard !row.isNull("id") else { return Claim(job: nil, expansionDue: expansionDue) }
        return Claim(job: try job(row), expansionDue: expansionDue)
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
        try connection.query("""
            UPDATE delivery_jobs SET leased_until = now() + make_interval(secs => \(leaseSeconds))
            WHERE id = \(jobID) AND leased_by = \(worker)
            """, durability: bookkeeping).affectedRows == 1
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
            INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, subscription_ids, tokens, live_activity_ids, badges)
            SELECT \(messageID), \(appID), \(lane.rawValue), \(tokenKind.rawValue), a.ids[j.first:j.last], \(tokens),
                   a.activities[j.first:j.last], a.badges[j.first:j.last]
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

    /// What one attempt at a job leaves behind: a record per finished recipient, the
    /// recipients to try again (a job on the next attempt, due after `retryDelay`), those
    /// never really tried (a paused app: a job on the same attempt, due at once), and those a
    /// delivery policy holds until later (a job on the same attempt per due time).
    package struct Completion: Sendable {
        package var records: [DeliveryRecord] = []
        package var retry: [DeliveryJob.Recipient] = []
        package var retryDelay: Double = 0
        package var held: [DeliveryJob.Recipient] = []
        /// Due time (unix seconds) → the recipients waiting for it.
        package var deferred: [Double: [DeliveryJob.Recipient]] = [:]

        package init() {}
    }

    /// Ends a job: appends its records in one statement, queues its retry job, and deletes it —
    /// only while this worker still holds it (false: the lease ran out and another worker has
    /// it, so nothing is written). A message cancelled meanwhile gets no retry job: those
    /// recipients are recorded `cancelled`.
    package static func complete(_ job: DeliveryJob, worker: String, with completion: Completion,
                                in connection: PostgresConnection) throws -> Bool {
        guard let tally = try completeUncounted(job, worker: worker, with: completion, in: connection) else { return false }
        try DeliveryCounts.add(tally, messageID: job.messageID, in: connection)
        return true
    }

    /// `complete` without adding the records to the message's counts: returns what the caller
    /// must add (`DeliveryCounts.add`) before it commits, or nil when the lease was lost. Adding
    /// them locks the message row until commit, and every job of a fan-out shares that row, so
    /// the engine adds them last, holding the lock for the shortest time.
    static func completeUncounted(_ job: DeliveryJob, worker: String, with completion: Completion,
                                  in connection: PostgresConnection) throws -> DeliveryTally? {
        // The records' `finished_at`: this transaction's now(), in the form binary COPY takes.
        // A job whose recipients were all accepted writes its batch from the row it removes.
        let wholeJobBatch = DeliveryRecord.wholeJobBatch(completion.records, of: job)
        // Without it the job's arrays are not read back at all.
        let (arrays, batch): (PostgresQuery, PostgresQuery) = wholeJobBatch.map {
            ("subscription_ids, live_activity_ids", ", batch AS (\($0))")
        } ?? ("1", "")
        guard let held = try connection.query(prepared: """
            WITH held AS (
                DELETE FROM delivery_jobs WHERE id = \(job.id) AND leased_by = \(worker) RETURNING \(arrays)
            )\(batch)
            SELECT ((extract(epoch FROM now()) - 946684800) * 1000000)::int8 AS now_since_2000 FROM held
            """).first else { return nil }
        let finishedAt: Int64 = try held.decode("now_since_2000")
        var records = completion.records
        let deferred = completion.deferred.sorted { $0.key < $1.key }
        var again: [(recipients: [DeliveryJob.Recipient], attempt: Int, due: PostgresQuery)] = [
            // A retry of a throttled message takes the message's next free slot (no sooner than
            // its backoff), so retries keep to the rate too.
            (completion.retry, job.attempt + 1, """
                COALESCE(openpush_throttle_reserve(\(job.messageID), now() + make_interval(secs => \(completion.retryDelay)), 1),
                         now() + make_interval(secs => \(completion.retryDelay)))
                """),
            (completion.held, job.attempt, "now()"),
        ] + deferred.map { ($0.value, job.attempt, "to_timestamp(\($0.key))") }
        let waiting = completion.retry + completion.held + deferred.flatMap(\.value)
        if !waiting.isEmpty, try isCancelled(job.messageID, in: connection) {
            records += waiting.map { DeliveryRecord(job: job, recipient: $0, state: .cancelled) }
            again = []
        }
        try DeliveryRecord.append(records, of: job, finishedAt: finishedAt, batchWritten: wholeJobBatch != nil, in: connection)
        // Without a snapshot (`PushToStartChanges`): their tokens were read under this job's, which
        // the job does not carry, so a push-to-start retry checks every token.
        for (recipients, attempt, due) in again where !recipients.isEmpty {
            try connection.query(prepared: """
                INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, attempt, due_at, subscription_ids, tokens,
                                           live_activity_ids, badges, created_at, recipients_snapshot)
                VALUES (\(job.messageID), \(job.appID), \(job.lane.rawValue), \(job.tokenKind.rawValue), \(attempt),
                        \(due), \(recipients.map(\.subscriptionID))::text[],
                        \(job.tokenKind.isReadWhenSent ? [] : recipients.map { $0.token ?? "" })::text[],
                        \(recipients.map(\.liveActivityID))::text[],
                        \(recipients.map(\.badge))::int[], to_timestamp(\(job.createdAt)), NULL)
                """)
        }
        // Lazily: `map` built an array of thousands of pairs only to read it once.
        return DeliveryTally(records.lazy.map { (state: $0.state, reason: $0.reason) })
    }

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
                RETURNING message_id, state, error_reason, finished_at
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
