import OpenPushCore
import Postgres

/// A batch's counts: every message's in one statement, and its app's rollup row once, so a
/// batch of one-user messages takes the app's hot per-second row once rather than per message.
extension DeliveryCounts {
    /// Adds each message's tally to its counts in one statement, locking the message rows in id
    /// order (two batches sharing messages lock them alike). The rollup is `addToStats`'s.
    static func add(_ tallies: [(messageID: String, tally: DeliveryTally)], in connection: PostgresConnection) throws {
        var merged: [String: DeliveryTally] = [:]
        for (messageID, tally) in tallies where !tally.isEmpty { merged[messageID, default: DeliveryTally()].add(tally) }
        guard !merged.isEmpty else { return }
        let sorted = merged.sorted { $0.key < $1.key }
        let counts = sorted.map(\.value)
        try connection.query(prepared: """
            UPDATE messages m SET
                counted_successful = m.counted_successful + t.successful,
                counted_failed = m.counted_failed + t.failed,
                counted_errored = m.counted_errored + t.errored,
                counted_cancelled = m.counted_cancelled + t.cancelled,
                counted_errors_by_reason = openpush_add_counts(m.counted_errors_by_reason, t.errors::jsonb),
                counted_suppressed_by_reason = openpush_add_counts(m.counted_suppressed_by_reason, t.suppressions::jsonb),
                counted_last_finished_at = GREATEST(m.counted_last_finished_at, now())
            FROM (SELECT * FROM unnest(\(sorted.map(\.key))::text[], \(counts.map(\.successful))::int8[],
                                       \(counts.map(\.failed))::int8[], \(counts.map(\.errored))::int8[],
                                       \(counts.map(\.cancelled))::int8[], \(counts.map { json($0.errorsByReason) })::text[],
                                       \(counts.map { json($0.suppressedByReason) })::text[])
                       WITH ORDINALITY AS u(id, successful, failed, errored, cancelled, errors, suppressions, ord)
                  ORDER BY ord) AS t
            WHERE m.id = t.id
            """)
    }

    /// A batch completion's messages, counted and settled in one statement
    /// (`openpush_lifecycle_count_settle`): each message's tally added and, for those a job of
    /// which finished, the `.jobFinished` settle. A message counted and completed at once is
    /// written by one UPDATE, not two: each logs the whole row, stored request included. Locks
    /// the rows in id order, as `add` and the settle do.
    static func addAndSettle(_ jobs: [(messageID: String, tally: DeliveryTally, finished: Bool)],
                             in connection: PostgresConnection) throws {
        var merged: [String: (tally: DeliveryTally, finished: Bool)] = [:]
        for job in jobs {
            var entry = merged[job.messageID] ?? (DeliveryTally(), false)
            entry.tally.add(job.tally)
            entry.finished = entry.finished || job.finished
            merged[job.messageID] = entry
        }
        let sorted = merged.filter { !$0.value.tally.isEmpty || $0.value.finished }.sorted { $0.key < $1.key }
        guard !sorted.isEmpty else { return }
        let counts = sorted.map(\.value.tally)
        let rows = try connection.query(prepared: """
            SELECT * FROM openpush_lifecycle_count_settle(
                \(sorted.map(\.key))::text[], \(sorted.map(\.value.finished))::bool[], \(counts.map { !$0.isEmpty })::bool[],
                \(counts.map(\.successful))::int8[], \(counts.map(\.failed))::int8[], \(counts.map(\.errored))::int8[],
                \(counts.map(\.cancelled))::int8[], \(counts.map { json($0.errorsByReason) })::text[],
                \(counts.map { json($0.suppressedByReason) })::text[])
            """)
        try MessageLifecycleStore.settled(rows, on: .jobFinished, in: connection)
    }

    /// Adds a batch's records, all of `appID`, to the app's rollup rows of this second in
    /// `shard`, a row per push service present, in one statement (rows in service order, so
    /// two completions lock them alike). Last in a completion: every completion of the app
    /// takes these rows.
    static func addToStats(_ tallies: [PushService: DeliveryTally], appID: String, shard: Int16,
                           in connection: PostgresConnection) throws {
        let rows = tallies.filter { $0.value.successful + $0.value.errors + $0.value.suppressed + $0.value.cancelled > 0 }
            .sorted { $0.key.rawValue < $1.key.rawValue }
        guard !rows.isEmpty else { return }
        let counts = rows.map(\.value)
        try connection.query(prepared: """
            INSERT INTO delivery_stats AS s (app_id, bucket, service, shard, accepted, failed, suppressed, cancelled, errors_by_reason)
            SELECT \(appID), \(bucketNow), t.service, \(shard), t.accepted, t.failed, t.suppressed, t.cancelled, t.errors::jsonb
            FROM unnest(\(rows.map(\.key.rawValue))::text[], \(counts.map(\.successful))::int8[], \(counts.map(\.errors))::int8[],
                        \(counts.map(\.suppressed))::int8[], \(counts.map(\.cancelled))::int8[],
                        \(counts.map { json($0.errorsByReason) })::text[])
                 WITH ORDINALITY AS t(service, accepted, failed, suppressed, cancelled, errors, ord)
            ORDER BY t.ord
            """ + addToStats())
    }
}
