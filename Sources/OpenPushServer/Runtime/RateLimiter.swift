import OpenPushDelivery
package import Postgres

/// A sliding-window limit kept in PostgreSQL, so it holds across every process on the database:
/// a request is admitted only if fewer than `limit` were admitted in the `window` seconds before it.
package struct RateLimit: Sendable, Equatable {
    package var bucket: String
    package var limit: Int
    package var window: Double

    package init(bucket: String, limit: Int, window: Double) {
        self.bucket = bucket
        self.limit = limit
        self.window = window
    }

    /// The two Live Activity send routes share 60 requests per 60 s per app.
    package static let liveActivitySends = RateLimit(bucket: "live_activity_sends", limit: 60, window: 60)
}

package enum RateLimiter {
    /// Admits and records one request in a short transaction of its own, committed before the
    /// request does its work: an admitted request keeps its slot whatever happens to it later
    /// (a `500`, a lost database), and the lock below is held only for these few statements.
    package static func admit(appID: String, _ rateLimit: RateLimit, now: Double, in database: PostgresPool) async throws -> Bool {
        try await database.transaction { try admit(appID: appID, rateLimit, now: now, in: $0) }
    }

    /// Admits and records one request, or refuses it. Call inside a transaction: the per-app,
    /// per-bucket advisory lock it takes is held until commit, so concurrent requests from any
    /// process are counted one after another.
    package static func admit(appID: String, _ rateLimit: RateLimit, now: Double, in connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(appID + "/" + rateLimit.bucket), 0))")
        let cutoff = now - rateLimit.window
        try connection.query("""
            DELETE FROM rate_limit_events
            WHERE app_id = \(appID) AND bucket = \(rateLimit.bucket) AND at <= to_timestamp(\(cutoff))
            """)
        let counted = try connection.query("""
            SELECT count(*)::int AS n FROM rate_limit_events
            WHERE app_id = \(appID) AND bucket = \(rateLimit.bucket) AND at > to_timestamp(\(cutoff))
            """)
        guard try counted[0].decode("n", as: Int.self) < rateLimit.limit else { return false }
        try connection.query("""
            INSERT INTO rate_limit_events (app_id, bucket, at) VALUES (\(appID), \(rateLimit.bucket), to_timestamp(\(now)))
            """)
        return true
    }
}
