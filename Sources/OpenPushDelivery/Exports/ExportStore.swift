package import OpenPushCore
package import Postgres

/// The `exports` rows and their files' chunks: what the routes record and read. The producer's
/// side (claims, leases, chunks written) is in `ExportStore+Production.swift`.
package enum ExportStore {
    /// NOTIFY channel: a job was recorded, a producer may take it.
    package static let channel = "openpush_exports"

    package static let tooMany = "this app already has \(ExportLimits.pendingPerApp) exports in production; "
        + "download one (or wait for it to finish) before requesting another"

    /// Records a job in one transaction and wakes the producers. An app with `pendingPerApp`
    /// jobs not finished is refused (`429`); for a message's history the message must be the
    /// app's (and, with a tenant, the tenant's): `404` otherwise; a segment the subscriptions are
    /// narrowed to must exist (`400`, as on a send). Returns the export's id.
    package static func create(appID: String, tenantID: String?, kind: ExportKind, messageID: String?,
                               segmentName: String? = nil, options: JSONValue,
                               now: Double, in database: PostgresPool) async throws -> String {
        let id = Identifier.make(prefix: "exp", now: now, random: KeyMaterial.identifierEntropy())
        let lock = appID + "/exports"
        return try await database.transaction { connection in
            // Two requests of one app at once count each other.
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lock), 0))")
            if let messageID {
                let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
                guard try !connection.query("""
                    SELECT 1 FROM messages WHERE id = \(messageID) AND app_id = \(appID) \(tenant)
                    """).isEmpty else { throw APIError.notFound("notification '\(messageID)' not found") }
            }
            if let segmentName {
                _ = try SegmentAudience.condition(appID: appID, tenantID: tenantID, included: [segmentName], now: now, in: connection)
            }
            let pending: Int = try connection.query("""
                SELECT count(*)::int AS pending FROM exports WHERE app_id = \(appID) AND state = 'pending'
                """)[0].decode("pending")
            guard pending < ExportLimits.pendingPerApp else {
                throw APIError(status: 429, tooMany, headers: ["Retry-After": "10"])
            }
            try connection.query("""
                INSERT INTO exports (id, app_id, tenant_id, kind, message_id, options, created_at, expires_at)
                VALUES (\(id), \(appID), \(tenantID), \(kind.rawValue), \(messageID), \(options.serialized)::jsonb,
                        to_timestamp(\(now)), to_timestamp(\(now + ExportLimits.retention)))
                """)
            try connection.query("SELECT pg_notify(\(channel), \(appID))")
            return id
        }
    }

    /// The app's export (nil when there is none, or it expired at `now`).
    package static func find(id: String, appID: String, now: Double, in database: PostgresPool) async throws -> ExportRecord? {
        try await database.query(ExportRecord.columns + """
             WHERE e.id = \(id) AND e.app_id = \(appID) AND e.expires_at > to_timestamp(\(now))
            """).first.map(ExportRecord.init(row:))
    }

    /// One chunk of a ready export's file.
    package static func chunk(exportID: String, position: Int, in database: PostgresPool) async throws -> [UInt8] {
        guard let row = try await database.query("""
            SELECT data FROM export_chunks WHERE export_id = \(exportID) AND position = \(position)
            """).first else { throw InvariantViolation("export \(exportID) lacks chunk \(position)") }
        return try row.decode("data")
    }

    /// Removes exports whose 3 days are over, with their files. Returns how many.
    @discardableResult
    package static func prune(now: Double, in database: PostgresPool) async throws -> Int {
        try await database.query("DELETE FROM exports WHERE expires_at <= to_timestamp(\(now))").affectedRows
    }
}
