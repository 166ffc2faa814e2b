package import OpenPushCore
package import Postgres

/// A job a producer holds: what to write, and the lease token its writes must carry.
package struct ClaimedExport: Sendable {
    package var id: String
    package var appID: String
    package var tenantID: String?
    package var kind: ExportKind
    package var messageID: String?
    package var options: JSONValue
    package var attempts: Int
    package var token: String
}

/// The producer lost its lease (it stalled past it and another process took the job, or the
/// job expired): it stops writing.
struct ExportLeaseLost: Error {}

extension ExportStore {
    /// Leases the oldest pending job of an app that has none in production, so while one app's
    /// large export runs another app's small one is taken by the next free producer. A lease
    /// that ran out (its process died) is taken again; leases use PostgreSQL's clock.
    package static func claim(token: String, in connection: PostgresConnection) throws -> ClaimedExport? {
        try connection.query("""
            WITH running AS (
                SELECT DISTINCT app_id FROM exports WHERE state = 'pending' AND leased_until > now()
            ), candidate AS (
                SELECT e.id FROM exports e
                WHERE e.state = 'pending' AND (e.leased_until IS NULL OR e.leased_until <= now())
                  AND e.app_id NOT IN (SELECT app_id FROM running)
                ORDER BY e.created_at, e.id
                LIMIT 1 FOR UPDATE SKIP LOCKED
            )
            UPDATE exports e
            SET leased_until = now() + make_interval(secs => \(ExportLimits.leaseSeconds)), leased_by = \(token),
                attempts = e.attempts + 1
            FROM candidate WHERE e.id = candidate.id
            RETURNING e.id, e.app_id, e.tenant_id, e.kind, e.message_id, e.options::text AS options, e.attempts
            """).first.map { row in
            let kind: String = try row.decode("kind")
            guard let known = ExportKind(rawValue: kind) else { throw InvariantViolation("an export holds kind '\(kind)'") }
            let options: String = try row.decode("options")
            return ClaimedExport(id: try row.decode("id"), appID: try row.decode("app_id"), tenantID: try row.decode("tenant_id"),
                                 kind: known, messageID: try row.decode("message_id"),
                                 options: (try? JSONValue.parse(Array(options.utf8))) ?? [:], attempts: try row.decode("attempts"),
                                 token: token)
        }
    }

    /// Starts the file afresh: chunks a dead producer left behind go.
    static func clearChunks(of job: ClaimedExport, in connection: PostgresConnection) throws {
        try connection.query("DELETE FROM export_chunks WHERE export_id = \(job.id)")
    }

    /// Extends the lease; throws `ExportLeaseLost` when it is no longer this producer's.
    static func renew(_ job: ClaimedExport, in connection: PostgresConnection) throws {
        let renewed = try connection.query("""
            UPDATE exports SET leased_until = now() + make_interval(secs => \(ExportLimits.leaseSeconds))
            WHERE id = \(job.id) AND leased_by = \(job.token) AND state = 'pending'
            """).affectedRows
        if renewed == 0 { throw ExportLeaseLost() }
    }

    /// Stores one chunk and extends the lease, in one statement: a producer that lost its
    /// lease writes nothing.
    static func writeChunk(_ job: ClaimedExport, position: Int, data: [UInt8], in connection: PostgresConnection) throws {
        let written = try connection.query("""
            WITH lease AS (
                UPDATE exports SET leased_until = now() + make_interval(secs => \(ExportLimits.leaseSeconds))
                WHERE id = \(job.id) AND leased_by = \(job.token) AND state = 'pending' RETURNING id
            )
            INSERT INTO export_chunks (export_id, position, data) SELECT id, \(position), \(data) FROM lease
            """).affectedRows
        if written == 0 { throw ExportLeaseLost() }
    }

    /// Stores the last chunk and marks the file ready, in one statement.
    static func complete(_ job: ClaimedExport, position: Int, data: [UInt8], rows: Int64, bytes: Int64,
                         in connection: PostgresConnection) throws {
        let written = try connection.query("""
            WITH done AS (
                UPDATE exports SET state = 'ready', leased_until = NULL, ready_at = now(), row_count = \(rows),
                                   byte_count = \(bytes)
                WHERE id = \(job.id) AND leased_by = \(job.token) AND state = 'pending' RETURNING id
            )
            INSERT INTO export_chunks (export_id, position, data) SELECT id, \(position), \(data) FROM done
            """).affectedRows
        if written == 0 { throw ExportLeaseLost() }
    }

    /// Gives the job back after a failure: pending again for another try, or `failed` once it
    /// has had `maxAttempts`. Its partial file goes either way.
    static func release(_ job: ClaimedExport, error: String, in connection: PostgresConnection) throws {
        try connection.query("""
            WITH released AS (
                UPDATE exports
                SET leased_until = NULL, leased_by = NULL, error = \(error),
                    state = CASE WHEN attempts >= \(ExportLimits.maxAttempts) THEN 'failed' ELSE 'pending' END
                WHERE id = \(job.id) AND leased_by = \(job.token) AND state = 'pending' RETURNING id
            )
            DELETE FROM export_chunks WHERE export_id IN (SELECT id FROM released)
            """)
    }

    /// A job whose producers died `maxAttempts` times is not tried again.
    static func giveUp(_ job: ClaimedExport, in connection: PostgresConnection) throws {
        let reason = "its producer stopped \(ExportLimits.maxAttempts) times"
        try connection.query("""
            WITH failed AS (
                UPDATE exports SET state = 'failed', leased_until = NULL, error = coalesce(error, \(reason))
                WHERE id = \(job.id) AND leased_by = \(job.token) RETURNING id
            )
            DELETE FROM export_chunks WHERE export_id IN (SELECT id FROM failed)
            """)
    }
}
