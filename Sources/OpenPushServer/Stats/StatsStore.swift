import OpenPushCore
import OpenPushDelivery
import Postgres

/// What the stats routes read: the per-app, per-second rollup of the delivery records
/// (`delivery_stats`, migrations 0035 and 0063), which every writer of a record adds to as it
/// writes it (`DeliveryCounts`), a row per push service and shard. Both queries read only the
/// window's rows, through the rollup's primary key `(app_id, bucket, service, shard)`. A bucket
/// is the second its records were written in (their `created_at`), and every window and step
/// the routes take is whole seconds, so the figures are those of the records themselves.
enum StatsStore {
    /// Accepted and failed (`error`) records per push service and bucket start, over every app
    /// (shards summed). The key leads with the app, so the series is read one app after another
    /// (one key range per app).
    static func throughput(_ buckets: StatsBuckets, in connection: PostgresConnection) throws
        -> [PushService: [Int64: (accepted: Int64, failed: Int64)]]
    {
        var counted: [PushService: [Int64: (accepted: Int64, failed: Int64)]] = [:]
        for row in try connection.query(throughputQuery(buckets)) {
            let service = try pushService(row.decode("service"))
            counted[service, default: [:]][try row.decode("at")] = (try row.decode("accepted"), try row.decode("failed"))
        }
        return counted
    }

    static func throughput(_ buckets: StatsBuckets, in database: PostgresPool) async throws
        -> [PushService: [Int64: (accepted: Int64, failed: Int64)]]
    {
        try await database.withConnection { try throughput(buckets, in: $0) }
    }

    /// A rollup row's `service` (a `PushService` label, as the table's check allows).
    static func pushService(_ label: String) throws -> PushService {
        guard let service = PushService(rawValue: label) else { throw InvariantViolation("unknown push service \(label) in delivery_stats") }
        return service
    }

    /// The app and its figures over `[from, to)`, read from one snapshot; nil for an unknown app.
    static func app(_ appID: String, from: Int64, to: Int64,
                    in database: PostgresPool) async throws -> (app: AppRecord, figures: AppFigures)? {
        try await database.transaction { connection -> (app: AppRecord, figures: AppFigures)? in
            try readSnapshot(connection)
            guard let app = try AppStore.find(appID, in: connection) else { return nil }
            return (app, try Self.app(appID, from: from, to: to, in: connection))
        }
    }

    /// The statement `throughput` runs (the tests read its plan).
    static func throughputQuery(_ buckets: StatsBuckets) -> PostgresQuery {
        """
        SELECT (floor(extract(epoch FROM s.bucket) / \(buckets.step)::bigint)::bigint * \(buckets.step)::bigint) AS at,
               s.service, sum(s.accepted)::bigint AS accepted, sum(s.failed)::bigint AS failed
        FROM apps a
        CROSS JOIN LATERAL (
            SELECT bucket, service, accepted, failed FROM delivery_stats
            WHERE app_id = a.id AND bucket >= to_timestamp(\(buckets.first)::float8)
              AND bucket < to_timestamp(\(buckets.end)::float8)
        ) AS s
        WHERE s.accepted > 0 OR s.failed > 0
        GROUP BY 1, 2
        """
    }

    /// One app's figures over `[from, to)` (unix seconds): its devices, and its records' counts
    /// summed over push services and by each (`StatsFigures`).
    struct AppFigures: Sendable {
        var devices: Int64
        var subscribed: Int64
        var total: StatsFigures
        /// Every push service, with zeros for one without records in the window.
        var byService: [PushService: StatsFigures]
    }

    /// Call inside a repeatable-read transaction (`readSnapshot`), so the counts and the
    /// reasons come from one snapshot.
    static func app(_ appID: String, from: Int64, to: Int64, in connection: PostgresConnection) throws -> AppFigures {
        let devices = try connection.query("""
            SELECT count(*) FILTER (WHERE retired_at IS NULL)::bigint AS devices,
                   count(*) FILTER (WHERE retired_at IS NULL AND enabled)::bigint AS subscribed
            FROM subscriptions WHERE app_id = \(appID)
            """).aggregateRow()
        var byService = Dictionary(uniqueKeysWithValues: PushService.allCases.map { ($0, StatsFigures()) })
        for row in try connection.query(appCountsQuery(appID, from: from, to: to)) {
            let service = try pushService(row.decode("service"))
            byService[service] = StatsFigures(
                accepted: try row.decode("accepted"), failed: try row.decode("failed"),
                suppressed: try row.decode("suppressed"), clicked: try row.decode("clicked"))
        }
        for row in try connection.query(appReasonsQuery(appID, from: from, to: to)) {
            let service = try pushService(row.decode("service"))
            byService[service, default: StatsFigures()].errorsByReason[try row.decode("error_reason")] = try row.decode("n")
        }
        return AppFigures(devices: try devices.decode("devices"), subscribed: try devices.decode("subscribed"),
                          total: StatsFigures.sum(byService.values), byService: byService)
    }

    /// One app's rollup rows in `[from, to)` (unix seconds).
    static func appWindow(_ appID: String, from: Int64, to: Int64) -> PostgresQuery {
        """
        app_id = \(appID) AND bucket >= to_timestamp(\(from)::float8) AND bucket < to_timestamp(\(to)::float8)
        """
    }

    /// The statements `app` runs for the counts and the reasons (the tests read
    /// their plans).
    static func appCountsQuery(_ appID: String, from: Int64, to: Int64) -> PostgresQuery {
        """
        SELECT service, sum(accepted)::bigint AS accepted, sum(failed)::bigint AS failed,
               sum(suppressed)::bigint AS suppressed, sum(clicked)::bigint AS clicked
        FROM delivery_stats WHERE \(appWindow(appID, from: from, to: to))
        GROUP BY service
        """
    }

    static func appReasonsQuery(_ appID: String, from: Int64, to: Int64) -> PostgresQuery {
        """
        SELECT service, r.key AS error_reason, sum(r.value::bigint)::bigint AS n
        FROM delivery_stats, jsonb_each_text(errors_by_reason) AS r
        WHERE \(appWindow(appID, from: from, to: to)) AND errors_by_reason <> '{}'
        GROUP BY service, r.key
        """
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
