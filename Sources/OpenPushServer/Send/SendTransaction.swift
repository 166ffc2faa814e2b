import OpenPushCore
import Postgres

/// The transaction every Live Activity send runs in: first the shared rate limit (which also
/// serialises this app's sends, so idempotency checks cannot race), then the work. An
/// `APIError` from the work becomes a refusal *after* the rate-limit row is committed.
enum SendTransaction {
    static func run(appID: String, now: Double, database: PostgresPool,
                    _ work: @escaping @Sendable (PostgresConnection) throws -> SendOutcome) async throws -> SendOutcome {
        try await database.transaction { connection in
            guard try RateLimiter.admit(appID: appID, .liveActivitySends, now: now, in: connection) else {
                return .rateLimited
            }
            do {
                return try work(connection)
            } catch let error as APIError {
                return .refused(error)
            }
        }
    }
}
