package import OpenPushCore
import Postgres

/// Where an export is: waiting for (or in) production, its file stored, or given up.
package enum ExportState: String, Sendable {
    case pending, ready, failed
}

/// One row of `exports`: a requested file and how far it got.
package struct ExportRecord: Sendable, Equatable {
    package var id: String
    package var appID: String
    package var tenantID: String?
    package var kind: ExportKind
    package var messageID: String?
    package var state: ExportState
    /// Chunks of the stored file (ready exports only).
    package var chunkCount: Int
    package var byteCount: Int64?
    /// Unix seconds.
    package var expiresAt: Double

    static let columns: PostgresQuery = """
        SELECT e.id, e.app_id, e.tenant_id, e.kind, e.message_id, e.state, e.byte_count,
               extract(epoch FROM e.expires_at)::float8 AS expires_at,
               (SELECT count(*) FROM export_chunks c WHERE c.export_id = e.id)::int AS chunk_count
        FROM exports e
        """

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        tenantID = try row.decode("tenant_id")
        let kind: String = try row.decode("kind")
        guard let known = ExportKind(rawValue: kind) else { throw InvariantViolation("an export holds kind '\(kind)'") }
        self.kind = known
        messageID = try row.decode("message_id")
        let state: String = try row.decode("state")
        guard let knownState = ExportState(rawValue: state) else { throw InvariantViolation("an export holds state '\(state)'") }
        self.state = knownState
        byteCount = try row.decode("byte_count")
        expiresAt = try row.decode("expires_at")
        chunkCount = try row.decode("chunk_count")
    }
}
