import OpenPushCore
import OpenPushDelivery
import Postgres

/// How every Live Activity send runs: first the shared rate limit, counted and committed in a
/// transaction of its own (so a send that fails later still used its slot), then the work, in a
/// transaction holding the app's send lock (see `AppSendLock`). An `APIError` or `InvalidInput`
/// from the work rolls its transaction back and becomes a refusal.
enum SendTransaction {
    static func run(appID: String, now: Double, database: PostgresPool,
                    _ work: @escaping @Sendable (PostgresConnection) throws -> SendOutcome) async throws -> SendOutcome {
        guard try await RateLimiter.admit(appID: appID, .liveActivitySends, now: now, in: database) else {
            return .rateLimited
        }
        do {
            return try await AppSendLock.withLock(appID: appID, database: database, work)
        } catch {
            guard let refusal = APIError.answering(error) else { throw error }
            return .refused(refusal)
        }
    }
}
