public import OpenPushCore
import Postgres

/// Periodic housekeeping every serving process runs: expired idempotency keys (30 days for
/// Live Activity starts, 24 hours for notifications), rate-limit rows of apps that stopped
/// sending, and wrong link codes of devices that stopped trying. Running it in many processes
/// at once is harmless.
public enum Maintenance {
    public static let interval: Duration = .seconds(600)

    /// One pass; returns how many rows each step removed.
    @discardableResult
    public static func runOnce(_ services: Services, now: Double)
        async throws -> (idempotencyKeys: Int, rateLimitEvents: Int, linkFailures: Int)
    {
        let keys = try await IdempotencyStore.prune(scope: IdempotencyStore.liveActivityStart,
                                                    olderThan: now - IdempotencyStore.liveActivityRetention,
                                                    in: services.database)
            + IdempotencyStore.prune(scope: NotificationStore.idempotencyScope,
                                     olderThan: now - NotificationStore.idempotencyRetention, in: services.database)
        let events = try await services.database.query("""
            DELETE FROM rate_limit_events WHERE at <= to_timestamp(\(now - 3600))
            """).affectedRows
        let linkFailures = try await LinkFailures.prune(olderThan: now - LinkFailureLimit.standard.window, in: services.database)
        return (keys, events, linkFailures)
    }

    /// Runs `runOnce` every `interval` until the task is cancelled; failures are logged, not fatal.
    public static func loop(_ services: Services, logger: Logger) async {
        while !Task.isCancelled {
            do {
                let removed = try await runOnce(services, now: services.now())
                if removed.idempotencyKeys + removed.rateLimitEvents + removed.linkFailures > 0 {
                    logger.info("maintenance", ["pruned.idempotency_keys": String(removed.idempotencyKeys),
                                                "pruned.rate_limit_events": String(removed.rateLimitEvents),
                                                "pruned.link_code_failures": String(removed.linkFailures)])
                }
            } catch {
                logger.warning("maintenance failed", ["error": String(describing: error)])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
