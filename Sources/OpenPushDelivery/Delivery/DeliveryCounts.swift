import OpenPushCore
package import Postgres

/// The per-message counts (`counted_*` on `messages`, migration 0033) that
/// `GET /notifications/{id}` reads instead of counting the message's records, and the per-app,
/// per-second rollup (`delivery_stats`, migration 0035) that the stats routes read. Every writer
/// of a record adds to both in the transaction (and statement) that writes it, so a read costs
/// one row whatever the audience, and a record is maintained in no index but its message's.
/// Lock order: the message row, then the rollup row.
package enum DeliveryCounts {
    /// Adds one job's records (tallied in Swift from the records just appended): its message's
    /// counts, then its app's rollup row, as a batch's completion adds them (`+Batch`). The
    /// message row is locked until commit, as the completion's `MessageLifecycleStore.apply`
    /// (or `DeliveryQueue.isCancelled`) locks it anyway: completions of one message's jobs on
    /// several workers take turns on it for the rest of their transaction only.
    static func add(_ tally: DeliveryTally, messageID: String, appID: String, in connection: PostgresConnection) throws {
        try add([(messageID, tally)], in: connection)
        try addToStats(tally, appID: appID, in: connection)
    }

    /// The rollup's bucket for records written now: their `created_at` (its default, this
    /// transaction's now()) to the second.
    static let bucketNow: PostgresQuery = "to_timestamp(floor(extract(epoch FROM now())))"

    /// The tail of an `INSERT INTO delivery_stats AS s …`: adds to the bucket's row when it exists.
    static func addToStats() -> PostgresQuery {
        """

        ON CONFLICT (app_id, bucket) DO UPDATE SET
            accepted = s.accepted + EXCLUDED.accepted,
            failed = s.failed + EXCLUDED.failed,
            suppressed = s.suppressed + EXCLUDED.suppressed,
            cancelled = s.cancelled + EXCLUDED.cancelled,
            clicked = s.clicked + EXCLUDED.clicked,
            errors_by_reason = openpush_add_counts(s.errors_by_reason, EXCLUDED.errors_by_reason)
        """
    }

    /// A device's first tap on a message (the message row locked already): counted in the
    /// rollup row of its record's bucket (the record's `created_at`), as the stats routes count
    /// a window's records with a tap, whenever the tap came.
    package static func addFirstTap(appID: String, recordCreatedAt: PostgresQuery, in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO delivery_stats AS s (app_id, bucket, clicked)
            VALUES (\(appID), date_trunc('second', \(recordCreatedAt)), 1)
            """ + addToStats())
    }

    /// A reason → count object as jsonb text; `{}` when empty, which `openpush_add_counts` skips.
    static func json(_ counts: [String: Int64]) -> String {
        JSONValue.object(JSONObject(counts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })).serialized
    }

    /// The tail of a statement whose CTE `inserted` (an `INSERT INTO deliveries … RETURNING
    /// message_id, state, error_reason, finished_at`, its `created_at` left to its default)
    /// appended records: adds them to their messages' counts and to their apps' rollup rows in
    /// the same statement, counted as `DeliveryTally` counts. Its callers (a cancel, a failure)
    /// lock the message row first, so the rollup row comes second here too.
    static func addInserted() -> PostgresQuery {
        let unreachable = DeliveryTally.unreachableReasons
        return """
            , stats_records AS (
                SELECT m.app_id, i.state, i.error_reason FROM inserted i JOIN messages m ON m.id = i.message_id
            ), stats AS (
                INSERT INTO delivery_stats AS s (app_id, bucket, accepted, failed, suppressed, cancelled, errors_by_reason)
                SELECT c.app_id, \(bucketNow), c.accepted, c.failed, c.suppressed, c.cancelled, COALESCE(r.reasons, '{}')
                FROM (SELECT app_id,
                             count(*) FILTER (WHERE state = 'accepted') AS accepted,
                             count(*) FILTER (WHERE state = 'error') AS failed,
                             count(*) FILTER (WHERE state = 'suppressed') AS suppressed,
                             count(*) FILTER (WHERE state = 'cancelled') AS cancelled
                      FROM stats_records GROUP BY app_id) AS c
                LEFT JOIN (SELECT app_id, jsonb_object_agg(error_reason, n) AS reasons
                           FROM (SELECT app_id, error_reason, count(*) AS n FROM stats_records
                                 WHERE state = 'error' AND error_reason IS NOT NULL GROUP BY app_id, error_reason) AS counted
                           GROUP BY app_id) AS r USING (app_id)
                WHERE c.accepted + c.failed + c.suppressed + c.cancelled > 0
            """ + addToStats() + """

            )
            , figures AS (
                SELECT message_id,
                       count(*) FILTER (WHERE state = 'accepted') AS successful,
                       count(*) FILTER (WHERE state = 'error' AND error_reason = ANY(\(unreachable))) AS failed,
                       count(*) FILTER (WHERE state = 'error' AND NOT (error_reason = ANY(\(unreachable)))) AS errored,
                       count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
                       max(finished_at) AS last_finished
                FROM inserted GROUP BY message_id
            ), reasons AS (
                SELECT message_id, jsonb_object_agg(error_reason, n) AS reasons
                FROM (SELECT message_id, error_reason, count(*) AS n FROM inserted
                      WHERE state = 'error' AND error_reason IS NOT NULL GROUP BY message_id, error_reason) AS counted
                GROUP BY message_id
            ), suppressions AS (
                SELECT message_id, jsonb_object_agg(error_reason, n) AS reasons
                FROM (SELECT message_id, error_reason, count(*) AS n FROM inserted
                      WHERE state = 'suppressed' AND error_reason IS NOT NULL GROUP BY message_id, error_reason) AS counted
                GROUP BY message_id
            )
            UPDATE messages m SET
                counted_successful = m.counted_successful + f.successful,
                counted_failed = m.counted_failed + f.failed,
                counted_errored = m.counted_errored + f.errored,
                counted_cancelled = m.counted_cancelled + f.cancelled,
                counted_last_finished_at = GREATEST(m.counted_last_finished_at, f.last_finished),
                counted_errors_by_reason = openpush_add_counts(m.counted_errors_by_reason, r.reasons),
                counted_suppressed_by_reason = openpush_add_counts(m.counted_suppressed_by_reason, sp.reasons)
            FROM figures f LEFT JOIN reasons r USING (message_id) LEFT JOIN suppressions sp USING (message_id)
            WHERE m.id = f.message_id
            """
    }
}
