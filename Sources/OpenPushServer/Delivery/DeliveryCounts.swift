import OpenPushCore
import Postgres

/// The per-message counts (`counted_*` on `messages`, migration 0033) that
/// `GET /notifications/{id}` reads instead of counting the message's records. Every writer of a
/// record adds to them in the transaction that writes it, so a read costs one row whatever the
/// audience.
enum DeliveryCounts {
    /// Adds one job's records (tallied in Swift from the records just appended) in one statement.
    /// The records' `finished_at` is this transaction's `now()`, so that is the latest finish.
    /// The message row is locked until commit, as the completion's `NotificationCompletion.check`
    /// (or `DeliveryQueue.isCancelled`) locks it anyway: completions of one message's jobs on
    /// several workers take turns on it for the rest of their transaction only.
    static func add(_ tally: DeliveryTally, messageID: String, in connection: PostgresConnection) throws {
        guard !tally.isEmpty else { return }
        try connection.query("""
            UPDATE messages SET
                counted_successful = counted_successful + \(tally.successful),
                counted_failed = counted_failed + \(tally.failed),
                counted_errored = counted_errored + \(tally.errored),
                counted_cancelled = counted_cancelled + \(tally.cancelled),
                counted_errors_by_reason = openpush_add_counts(counted_errors_by_reason,
                                                               \(json(tally.errorsByReason))::jsonb),
                counted_suppressed_by_reason = openpush_add_counts(counted_suppressed_by_reason,
                                                                   \(json(tally.suppressedByReason))::jsonb),
                counted_last_finished_at = GREATEST(counted_last_finished_at, now())
            WHERE id = \(messageID)
            """)
    }

    /// A reason → count object as jsonb text; `{}` when empty, which `openpush_add_counts` skips.
    static func json(_ counts: [String: Int64]) -> String {
        JSONValue.object(JSONObject(counts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })).serialized
    }

    /// The tail of a statement whose CTE `inserted` (an `INSERT INTO deliveries … RETURNING
    /// message_id, state, error_reason, finished_at`) appended records: adds them to their
    /// messages' counts in the same statement, counted as `DeliveryTally` counts.
    static func addInserted() -> PostgresQuery {
        let unreachable = DeliveryTally.unreachableReasons
        return """
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
