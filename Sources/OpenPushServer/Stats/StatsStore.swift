import OpenPushCore
import Postgres

/// What the stats routes read from the per-device delivery records. Both queries go through
/// `deliveries_by_app_time (app_id, created_at)` (migration 0030) and read only the window's rows:
/// `created_at` is the record's time (the transaction that completed its job) and the partition
/// key, so a window also touches only its days' partitions.
enum StatsStore {
    /// Accepted and failed (`error`) records per bucket start, over every app. The index leads
    /// with the app, so the series is read one app after another (one index range per app)
    /// instead of every record of the days the window touches.
    static func throughput(_ buckets: StatsBuckets, in connection: PostgresConnection) throws
        -> [Int64: (accepted: Int64, failed: Int64)]
    {
        let rows = try connection.query("""
            SELECT (floor(extract(epoch FROM d.created_at) / \(buckets.step)::bigint)::bigint * \(buckets.step)::bigint) AS at,
                   count(*) FILTER (WHERE d.state = 'accepted')::bigint AS accepted,
                   count(*) FILTER (WHERE d.state = 'error')::bigint AS failed
            FROM apps a
            CROSS JOIN LATERAL (
                SELECT created_at, state FROM deliveries
                WHERE app_id = a.id AND created_at >= to_timestamp(\(buckets.first)::float8)
                  AND created_at < to_timestamp(\(buckets.end)::float8)
            ) AS d
            WHERE d.state IN ('accepted', 'error')
            GROUP BY 1
            """)
        var counted: [Int64: (accepted: Int64, failed: Int64)] = [:]
        for row in rows {
            counted[try row.decode("at")] = (try row.decode("accepted"), try row.decode("failed"))
        }
        return counted
    }

    /// One app's figures over `[from, to)` (unix seconds).
    struct AppFigures: Sendable {
        var devices: Int64
        var subscribed: Int64
        var sent: Int64
        var accepted: Int64
        var failed: Int64
        var suppressed: Int64
        var clicked: Int64
        /// Most frequent first.
        var errorsByReason: [(reason: String, count: Int64)]
    }

    /// Call inside a repeatable-read transaction (`readSnapshot`), so the counts and the
    /// reasons come from one snapshot.
    static func app(_ appID: String, from: Int64, to: Int64, in connection: PostgresConnection) throws -> AppFigures {
        let window: PostgresQuery = """
            app_id = \(appID) AND created_at >= to_timestamp(\(from)::float8) AND created_at < to_timestamp(\(to)::float8)
            """
        let devices = try connection.query("""
            SELECT count(*) FILTER (WHERE retired_at IS NULL)::bigint AS devices,
                   count(*) FILTER (WHERE retired_at IS NULL AND enabled)::bigint AS subscribed
            FROM subscriptions WHERE app_id = \(appID)
            """).aggregateRow()
        let counts = try connection.query("""
            SELECT count(*) FILTER (WHERE state IN ('accepted', 'error'))::bigint AS sent,
                   count(*) FILTER (WHERE state = 'accepted')::bigint AS accepted,
                   count(*) FILTER (WHERE state = 'error')::bigint AS failed,
                   count(*) FILTER (WHERE state = 'suppressed')::bigint AS suppressed,
                   count(*) FILTER (WHERE clicked_at IS NOT NULL)::bigint AS clicked
            FROM deliveries WHERE \(window)
            """).aggregateRow()
        let reasons = try connection.query("""
            SELECT error_reason, count(*)::bigint AS n FROM deliveries
            WHERE \(window) AND state = 'error' AND error_reason IS NOT NULL
            GROUP BY error_reason ORDER BY n DESC, error_reason
            """)
        return AppFigures(
            devices: try devices.decode("devices"), subscribed: try devices.decode("subscribed"),
            sent: try counts.decode("sent"), accepted: try counts.decode("accepted"), failed: try counts.decode("failed"),
            suppressed: try counts.decode("suppressed"), clicked: try counts.decode("clicked"),
            errorsByReason: try reasons.map { (try $0.decode("error_reason"), try $0.decode("n")) })
    }

    /// The first statement of a transaction whose reads must agree with each other.
    static func readSnapshot(_ connection: PostgresConnection) throws {
        try connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }
}

extension PostgresRows {
    /// The single row an aggregate always answers with.
    fileprivate func aggregateRow() throws -> PostgresRow {
        guard let row = first else { throw InvariantViolation("an aggregate query answered no row") }
        return row
    }
}
