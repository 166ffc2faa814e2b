import OpenPushCore
package import Postgres

/// Drops the outcome hours past `OutcomeLimits.retentionDays` (run by `Maintenance`).
package enum OutcomeRetention {
    @discardableResult
    package static func prune(now: Double, in database: PostgresPool) async throws -> Int {
        let cutoff = now - Double(OutcomeLimits.retentionDays) * 86_400
        return try await database.query("DELETE FROM outcome_hours WHERE hour < to_timestamp(\(cutoff))").affectedRows
    }
}
