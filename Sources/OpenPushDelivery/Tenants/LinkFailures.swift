package import OpenPushCore
package import Postgres

/// The `link_code_failures` rows of one device: its wrong codes within the limit's window.
/// A successful link does not clear them, so linking to a tenant one owns cannot reset the count.
package enum LinkFailures {
    package static func retryAfter(subscriptionID: String, limit: LinkFailureLimit, now: Double,
                           in connection: PostgresConnection) throws -> Int? {
        try connection.query("""
            DELETE FROM link_code_failures
            WHERE subscription_id = \(subscriptionID) AND at <= to_timestamp(\(now - limit.window))
            """)
        let failedAt = try connection.query("""
            SELECT extract(epoch FROM at)::float8 AS at FROM link_code_failures WHERE subscription_id = \(subscriptionID)
            """).map { try $0.decode("at", as: Double.self) }
        return limit.retryAfter(failedAt: failedAt, now: now)
    }

    package static func record(subscriptionID: String, now: Double, in connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO link_code_failures (subscription_id, at) VALUES (\(subscriptionID), to_timestamp(\(now)))
            """)
    }

    /// Failures too old to count, of devices that have not tried since; run periodically.
    static func prune(olderThan cutoff: Double, in database: PostgresPool) async throws -> Int {
        try await database.query("DELETE FROM link_code_failures WHERE at <= to_timestamp(\(cutoff))").affectedRows
    }
}
