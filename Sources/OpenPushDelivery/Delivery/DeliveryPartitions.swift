package import OpenPushCore
package import Postgres

/// Runs a `DeliveryPartitionPlan` on the daily partitions of the per-device records: a day is a
/// partition of `delivery_rows` (`deliveries_YYYYMMDD`) and one of `delivery_batches`
/// (`delivery_batches_YYYYMMDD`, migration 0045), created and dropped together with
/// `DROP TABLE`, never a `DELETE` of records. The day's taps (`delivery_clicks`, keyed by their
/// record's day) are deleted with it through their index on that day.
/// `GET /notifications/{id}` answers the same before and after: it reads the counts kept on the
/// message row as each record was written (`DeliveryCounts`, migration 0033), which already
/// include every record ever written, so a drop adds nothing to them (adding the dropped records
/// again would count them twice). The `archived_*` columns hold what was dropped before 0033;
/// the migration folded them into the counts once, and nothing writes them any more.
///
/// Each step is its own transaction under one advisory lock, so passes of several processes
/// take turns; inside the lock each step looks again at what exists, and a step another process
/// did meanwhile is skipped, not done twice.
package enum DeliveryPartitions {
    /// What one pass did: days whose partition it created and dropped.
    package struct Outcome: Sendable, Equatable {
        package var created: [UTCDay]
        package var dropped: [UTCDay]

        package init(created: [UTCDay] = [], dropped: [UTCDay] = []) {
            self.created = created
            self.dropped = dropped
        }
    }

    /// The bound on one step's statements. Moving a busy day's stranded records takes longer than
    /// a request may, so the pass runs on its own connection (see `Maintenance`), not the pool's.
    package static let statementTimeout: Duration = .seconds(600)

    /// How long a step waits for a table lock once it holds the advisory one. `DROP TABLE` needs
    /// an exclusive lock on `deliveries` itself, and queries queue behind a waiting one, so it
    /// gives up quickly and the next pass tries again.
    static let lockTimeout = "2s"

    package static func maintain(retentionDays: Int, now: Double, in database: PostgresPool) async throws -> Outcome {
        let (partitions, daysInDefault) = try await database.withConnection { connection in
            (try existingPartitions(connection), try daysWithRecordsInDefault(connection))
        }
        let plan = DeliveryPartitionPlan.make(today: UTCDay(containing: now), retentionDays: retentionDays,
                                              partitions: partitions, daysInDefault: daysInDefault)
        var outcome = Outcome()
        // Creations first, so records stuck in the default partition are in their day's
        // partition when it is dropped.
        for day in plan.create {
            if try await database.transaction({ try create(day, $0) }) {
                outcome.created.append(day)
            }
        }
        for day in plan.drop {
            if try await database.transaction({ try drop(day, $0) }) {
                outcome.dropped.append(day)
            }
        }
        return outcome
    }

    /// The two partitioned tables of a day's records, each with its default partition.
    static let tables: [(parent: String, prefix: String, defaultPartition: String)] = [
        ("delivery_rows", DeliveryPartitionPlan.partitionPrefix, "deliveries_default"),
        ("delivery_batches", "delivery_batches_", "delivery_batches_default"),
    ]

    /// Names of the tables attached to `delivery_rows`, `deliveries_default` among them, as
    /// the plan names days. A day whose batches partition is missing (an interrupted upgrade)
    /// is left out, so the plan creates it.
    static func existingPartitions(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'delivery_rows'::regclass
              AND (c.relname !~ '^deliveries_[0-9]{8}$' OR EXISTS (
                  SELECT 1 FROM pg_inherits bi JOIN pg_class bc ON bc.oid = bi.inhrelid
                  WHERE bi.inhparent = 'delivery_batches'::regclass AND bc.relname = 'delivery_batches_' || substr(c.relname, 12)))
            """).map { try $0.decode("name") }
    }

    /// UTC days of the records that landed in the default partition (a partition was missing).
    /// Empty in normal operation, so reading it whole costs nothing.
    static func daysWithRecordsInDefault(_ connection: PostgresConnection) throws -> [UTCDay] {
        try connection.query("""
            SELECT DISTINCT to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDD') AS day
            FROM (SELECT created_at FROM deliveries_default UNION ALL SELECT created_at FROM delivery_batches_default) AS stranded
            """).compactMap { UTCDay(yyyymmdd: try $0.decode("day", as: String.self)) }
    }

    /// Waits for the advisory lock (while another process runs a step), then bounds table locks.
    private static func begin(_ connection: PostgresConnection) throws {
        try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('openpush.delivery_partitions', 0))")
        try connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = '\(lockTimeout)'"))
    }

    private static func isAttached(_ name: String, to parent: String, _ connection: PostgresConnection) throws -> Bool {
        try !connection.query("""
            SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = \(parent)::regclass AND c.relname = \(name)
            """).isEmpty
    }

    /// The day's partitions that exist, of both tables.
    private static func attachedTables(of day: UTCDay, _ connection: PostgresConnection) throws -> [String] {
        try tables.map { (name: $0.prefix + day.yyyymmdd, parent: $0.parent) }
            .filter { try isAttached($0.name, to: $0.parent, connection) }.map(\.name)
    }

    /// Creates the day's partitions. PostgreSQL refuses while a default partition holds
    /// records of that day, so those move into it in the same transaction.
    static func create(_ day: UTCDay, _ connection: PostgresConnection) throws -> Bool {
        try begin(connection)
        guard try attachedTables(of: day, connection).count < tables.count else { return false }
        let (start, end) = (day.startSeconds, (day + 1).startSeconds)
        // Looked up here, under the lock: a record may have landed there since the plan was made.
        let stranded = try tables.filter { table in
            try connection.query("""
                SELECT EXISTS (SELECT 1 FROM \(identifier: table.defaultPartition)
                               WHERE created_at >= to_timestamp(\(start)) AND created_at < to_timestamp(\(end))) AS stranded
                """)[0].decode("stranded", as: Bool.self)
        }
        // Each table's stranded records wait in a temporary table of their own meanwhile.
        let moves = stranded.map { (table: $0, holding: "openpush_moving_" + $0.parent) }
        for move in moves {
            try connection.query("""
                CREATE TEMPORARY TABLE \(identifier: move.holding) (LIKE \(identifier: move.table.parent)) ON COMMIT DROP
                """)
            try connection.query("""
                WITH moved AS (DELETE FROM \(identifier: move.table.defaultPartition)
                               WHERE created_at >= to_timestamp(\(start)) AND created_at < to_timestamp(\(end)) RETURNING *)
                INSERT INTO \(identifier: move.holding) SELECT * FROM moved
                """)
        }
        try connection.query("SELECT openpush_delivery_partitions(\(day.isoDate)::date, \(day.isoDate)::date)")
        for move in moves {
            try connection.query("""
                INSERT INTO \(identifier: move.table.parent) OVERRIDING SYSTEM VALUE SELECT * FROM \(identifier: move.holding)
                """)
        }
        return true
    }

    /// Drops the day's partitions. Their records are in their messages' counts already (see above). The
    /// day's rows of the stats rollup (`delivery_stats`, bucketed by the records' `created_at`,
    /// the partition key) go with it, in the same transaction: the stats routes keep answering
    /// what the records hold, and the rollup keeps no more days than they do. They are deleted
    /// before the `DROP`s, whose exclusive locks on the parents are then held only to the commit.
    /// So are the taps on its records: nothing reads a tap without its record.
    static func drop(_ day: UTCDay, _ connection: PostgresConnection) throws -> Bool {
        try begin(connection)
        let attached = try attachedTables(of: day, connection)
        guard !attached.isEmpty else { return false }
        let (start, end) = (day.startSeconds, (day + 1).startSeconds)
        try connection.query("""
            DELETE FROM delivery_stats WHERE bucket >= to_timestamp(\(start)) AND bucket < to_timestamp(\(end))
            """)
        try connection.query("""
            DELETE FROM delivery_clicks
            WHERE record_created_at >= to_timestamp(\(start)) AND record_created_at < to_timestamp(\(end))
            """)
        for name in attached {
            try connection.query("DROP TABLE \(identifier: name)")
        }
        return true
    }
}
