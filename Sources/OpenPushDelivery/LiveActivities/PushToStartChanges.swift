import Postgres

/// The log of push-to-start token changes (migration 0042): each replaced or removed token
/// leaves its app and transaction id, so a start's job can tell whether any token of its app
/// changed since its recipients were read, and check them one by one only then.
enum PushToStartChanges {
    /// True for a job (alias `j` of `delivery_jobs`) whose recipients a token change may have
    /// overtaken: a change of its app that its `recipients_snapshot` does not see (committed
    /// after the snapshot, or in flight when it was taken), or no snapshot at all (a retry, a
    /// job queued before the log). Changes older than the snapshot's xmin are all visible to it,
    /// so the index range starts there.
    static let mayHaveChanged: PostgresQuery = """
        (j.recipients_snapshot IS NULL OR EXISTS (
            SELECT 1 FROM push_to_start_token_changes c
            WHERE c.app_id = j.app_id AND c.xid >= pg_snapshot_xmin(j.recipients_snapshot)
              AND NOT pg_visible_in_snapshot(c.xid, j.recipients_snapshot)))
        """

    /// A job is inserted by the statement that took its snapshot, so a job not committed yet may
    /// hold a snapshot older than a change committed meanwhile, and no pruner sees that job. No
    /// such statement lasts this long (statements time out after seconds), so a change this old
    /// is safe to judge by the jobs there are.
    static let settleSeconds: Double = 3600

    /// Removes the changes every job's snapshot sees (older than the oldest xmin among them),
    /// once they are `settle` seconds old by PostgreSQL's clock; later snapshots see them anyway.
    @discardableResult
    static func prune(settle: Double = settleSeconds, in database: PostgresPool) async throws -> Int {
        try await database.query("""
            WITH oldest AS (
                SELECT pg_snapshot_xmin(recipients_snapshot) AS xmin FROM delivery_jobs
                WHERE recipients_snapshot IS NOT NULL ORDER BY 1 LIMIT 1
            )
            DELETE FROM push_to_start_token_changes c
            WHERE c.changed_at < now() - make_interval(secs => \(settle))
              AND NOT EXISTS (SELECT 1 FROM oldest WHERE c.xid >= oldest.xmin)
            """).affectedRows
    }
}
