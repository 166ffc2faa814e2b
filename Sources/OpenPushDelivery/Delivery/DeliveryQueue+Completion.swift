package import OpenPushCore
package import Postgres

/// Completing jobs: a batch's jobs end together, in one transaction, with a statement per kind
/// of write rather than a statement per job.
extension DeliveryQueue {
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
        /// The push service of each waiting recipient (by subscription), for the record a cancel
        /// makes of it; `.apns` when not given.
        package var waitingServices: [String: PushService] = [:]

        package init() {}

        /// Recipients that wait in a job of their own after this attempt.
        var waiting: Bool { !retry.isEmpty || !held.isEmpty || !deferred.isEmpty }
    }

    /// A job of a batch that its completion ended: what it adds to its message's counts, and
    /// whether nothing of it waits any more (or its message was cancelled), so its message may
    /// be over.
    struct Completed: Sendable {
        var job: DeliveryJob
        /// What it adds to its app's stats rollup, by push service (only services it has records of).
        var stats: [PushService: DeliveryTally]
        /// What it adds to its message's counts: every service's records.
        var tally: DeliveryTally {
            var total = DeliveryTally()
            for each in stats.values { total.add(each) }
            return total
        }
        var finished: Bool
    }

    /// Ends a job: appends its records, queues its retry job, and deletes it — only while this
    /// worker still holds it (false: the lease ran out and another worker has it, so nothing is
    /// written). A message cancelled meanwhile gets no retry job: those recipients are recorded
    /// `cancelled`.
    package static func complete(_ job: DeliveryJob, worker: String, with completion: Completion,
                                in connection: PostgresConnection) throws -> Bool {
        guard let done = try completeUncounted([job], worker: worker, with: [completion], in: connection).first else { return false }
        try DeliveryCounts.add([(job.messageID, done.tally)], in: connection)
        try DeliveryCounts.addToStats(done.stats, appID: job.appID, shard: DeliveryCounts.anyShard(), in: connection)
        return true
    }

    /// `complete` for a batch's jobs (`completions[i]` is `jobs[i]`'s), without adding the records
    /// to the messages' counts: returns the jobs this worker still held, each with what the
    /// caller must add (`DeliveryCounts`) before it commits. A job whose lease was lost writes
    /// nothing. Adding the counts locks the message rows until commit, and every job of a fan-out
    /// shares its message's row, so the engine adds them last, holding the locks for the
    /// shortest time.
    static func completeUncounted(_ jobs: [DeliveryJob], worker: String, with completions: [Completion],
                                  in connection: PostgresConnection) throws -> [Completed] {
        precondition(jobs.count == completions.count, "a completion per job")
        // A job whose recipients were all accepted writes its batch row from the row it removes.
        let whole = zip(jobs, completions).map { DeliveryRecord.wholeJob($1.records, of: $0) }
        let (held, finishedAt) = try removeHeld(jobs, whole: whole, worker: worker, in: connection)
        var completed: [Completed] = []
        var rows: [DeliveryRecord.Rows] = []
        for index in jobs.indices where held.contains(jobs[index].id) {
            let job = jobs[index], completion = completions[index]
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
            let cancelled = completion.waiting ? try isCancelled(job.messageID, in: connection) : false
            if cancelled {
                let waiting = completion.retry + completion.held + deferred.flatMap(\.value)
                records += waiting.map {
                    DeliveryRecord(job: job, recipient: $0, state: .cancelled,
                                   service: completion.waitingServices[$0.subscriptionID] ?? .apns)
                }
                again = []
            }
            let split = DeliveryRecord.split(records, of: job)
            if whole[index] == nil {
                try DeliveryRecord.appendBatch(split.batched, status: split.status, of: job, in: connection)
            }
            rows.append(DeliveryRecord.Rows(job: job, firstPosition: split.batched.count, records: split.single))
            // Without a snapshot (`PushToStartChanges`): their tokens were read under this job's, which
            // the job does not carry, so a push-to-start retry checks every token.
            for (recipients, attempt, due) in again where !recipients.isEmpty {
                try connection.query(prepared: """
                    INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, attempt, due_at, subscription_ids, tokens,
                                               live_activity_ids, badges, created_at, recipients_snapshot, recipients)
                    VALUES (\(job.messageID), \(job.appID), \(job.lane.rawValue), \(job.tokenKind.rawValue), \(attempt),
                            \(due), \(recipients.map(\.subscriptionID))::text[],
                            \(job.tokenKind.isReadWhenSent ? [] : recipients.map { $0.token ?? "" })::text[],
                            \(recipients.map(\.liveActivityID))::text[],
                            \(recipients.map(\.badge))::int[], to_timestamp(\(job.createdAt)), NULL, \(recipients.count))
                    """)
            }
            // Lazily: `map` built an array of thousands of pairs only to read it once.
            completed.append(Completed(job: job, stats: DeliveryCounts.byService(records), finished: !completion.waiting || cancelled))
        }
        if let finishedAt { try DeliveryRecord.appendRows(rows, finishedAt: finishedAt, in: connection) }
        return completed
    }

    /// Deletes the jobs `worker` still holds, writing the batch rows of the whole ones from their
    /// own arrays, in one statement. Returns the ids deleted and this transaction's `now()` as
    /// the records' `finished_at` (microseconds since 2000, the form binary COPY takes), nil when
    /// none was held.
    private static func removeHeld(_ jobs: [DeliveryJob], whole: [DeliveryRecord.WholeJob?], worker: String,
                                   in connection: PostgresConnection) throws -> (Set<Int64>, Int64?) {
        let wholeJobs = zip(jobs, whole).compactMap { job, whole in whole.map { (job: job, whole: $0) } }
        // Without a whole job, the jobs' arrays are not read back at all.
        let (arrays, batches): (PostgresQuery, PostgresQuery) = wholeJobs.isEmpty
            ? ("", "") : (", subscription_ids, live_activity_ids", DeliveryRecord.wholeBatchesInsert(wholeJobs))
        let rows = try connection.query(prepared: """
            WITH held AS (
                DELETE FROM delivery_jobs WHERE id = ANY(\(jobs.map(\.id))::int8[]) AND leased_by = \(worker) RETURNING id\(arrays)
            )\(batches)
            SELECT id, ((extract(epoch FROM now()) - 946684800) * 1000000)::int8 AS now_since_2000 FROM held
            """)
        guard let first = rows.first else { return ([], nil) }
        return (Set(try rows.map { try $0.decode("id", as: Int64.self) }), try first.decode("now_since_2000"))
    }
}
