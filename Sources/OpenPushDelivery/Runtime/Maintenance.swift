package import OpenPushCore
import Postgres

/// Periodic housekeeping every serving process runs: expired idempotency keys (30 days for
/// Live Activity starts and a notification body's `idempotency_key`, 24 hours for the
/// `Idempotency-Key` header), rate-limit rows of apps that stopped
/// sending, wrong link codes of devices that stopped trying, alert dedupe claims past their app's
/// `dedupe_window_days`, push-to-start token changes every job has seen (`PushToStartChanges`),
/// and daily partitions of delivery records: the next few days' created, those past
/// `OPENPUSH_DELIVERY_RETENTION_DAYS` dropped (`DeliveryPartitions`), and audit log entries
/// past a year (`AuditRetention`), and APNs certificates near or past their expiry
/// (`CertificateExpiryCheck`). Running it in many processes at once is harmless.
package enum Maintenance {
    package static let interval: Duration = .seconds(600)
    /// How often `/metrics`' database figures are read (`refreshMetrics`).
    package static let metricsInterval: Duration = .seconds(15)

    /// Reads the figures `/metrics` serves from PostgreSQL (the queue depth, the webhook backlog
    /// by app) into `services.metrics`; when the read fails they are cleared, so a scrape shows
    /// them unknown rather than stale.
    package static func refreshMetrics(_ services: Services) async throws {
        do {
            let depth = try await DeliveryQueue.depth(in: services.database)
            let pending = try await WebhookDispatchStore.pendingByApp(in: services.database)
            services.metrics.databaseFigures = Metrics.DatabaseFigures(queueDepth: depth, webhookPending: pending, at: services.now())
        } catch {
            services.metrics.databaseFigures = nil
            throw error
        }
    }

    /// One pass; returns how many rows each step removed, and the partitions it created and dropped.
    @discardableResult
    package static func runOnce(_ services: Services, now: Double)
        async throws -> (idempotencyKeys: Int, rateLimitEvents: Int, linkFailures: Int, partitions: DeliveryPartitions.Outcome,
                         dedupeClaims: Int)
    {
        let keys = try await IdempotencyStore.prune(scope: IdempotencyStore.liveActivityStart,
                                                    olderThan: now - IdempotencyStore.liveActivityRetention,
                                                    in: services.database)
            + IdempotencyStore.prune(scope: NotificationStore.idempotencyScope,
                                     olderThan: now - NotificationStore.idempotencyRetention, in: services.database)
            + IdempotencyStore.prune(scope: NotificationStore.bodyIdempotencyScope,
                                     olderThan: now - NotificationStore.bodyIdempotencyRetention, in: services.database)
        let events = try await services.database.query("""
            DELETE FROM rate_limit_events WHERE at <= to_timestamp(\(now - 3600))
            """).affectedRows
        let linkFailures = try await LinkFailures.prune(olderThan: now - LinkFailureLimit.standard.window, in: services.database)
        // Dedupe claims past their app's window no longer dedupe anything (`AlertDedupe`).
        let dedupeClaims = try await AlertDedupeStore.prune(now: now, in: services.database)
        let partitions = try await maintainDeliveryPartitions(services, now: now)
        // Events past the feed's 7 days (`EventOutbox.retentionDays`).
        try await EventFeed.prune(now: now, in: services.database)
        // Push-to-start token changes every job has seen.
        try await PushToStartChanges.prune(in: services.database)
        // Outcome hours past their 31 days (`OutcomeLimits.retentionDays`).
        try await OutcomeRetention.prune(now: now, in: services.database)
        // Audit log entries past their year (`AuditRetention`).
        try await services.database.query("SELECT openpush_audit_prune(to_timestamp(\(AuditRetention.cutoff(now: now))))")
        // Certificates in their last thirty days warn once; expired ones pause their app.
        try await CertificateExpiryCheck.run(now: now, in: services.database)
        return (keys, events, linkFailures, partitions, dedupeClaims)
    }

    /// On a connection of its own, bounded by `DeliveryPartitions.statementTimeout` rather than
    /// the request timeout: counting a busy day's records before its drop may take a while.
    private static func maintainDeliveryPartitions(_ services: Services, now: Double) async throws -> DeliveryPartitions.Outcome {
        let database = PostgresPool(conninfo: services.databaseConninfo, size: 1,
                                    timeouts: PostgresTimeouts(statement: DeliveryPartitions.statementTimeout))
        do {
            let outcome = try await DeliveryPartitions.maintain(retentionDays: services.configuration.deliveryRetentionDays,
                                                                now: now, in: database)
            await database.close()
            return outcome
        } catch {
            await database.close()
            throw error
        }
    }

    /// Runs `runOnce` every `interval`, and `refreshMetrics` every `metricsInterval`, until the
    /// task is cancelled; failures are logged, not fatal.
    package static func loop(_ services: Services, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await housekeeping(services, logger: logger) }
            group.addTask { await ExportProducer.loop(services, logger: logger) }
            group.addTask {
                while !Task.isCancelled {
                    do {
                        try await refreshMetrics(services)
                    } catch {
                        logger.warning("metrics refresh failed", ["error": String(describing: error)])
                    }
                    try? await Task.sleep(for: metricsInterval)
                }
            }
        }
    }

    private static func housekeeping(_ services: Services, logger: Logger) async {
        while !Task.isCancelled {
            do {
                let removed = try await runOnce(services, now: services.now())
                if removed.idempotencyKeys + removed.rateLimitEvents + removed.linkFailures + removed.dedupeClaims > 0 {
                    logger.info("maintenance", ["pruned.idempotency_keys": String(removed.idempotencyKeys),
                                                "pruned.rate_limit_events": String(removed.rateLimitEvents),
                                                "pruned.link_code_failures": String(removed.linkFailures),
                                                "pruned.dedupe_claims": String(removed.dedupeClaims)])
                }
                if !removed.partitions.created.isEmpty || !removed.partitions.dropped.isEmpty {
                    logger.info("delivery partitions", ["partitions.created": removed.partitions.created.map(\.isoDate).joined(separator: " "),
                                                        "partitions.dropped": removed.partitions.dropped.map(\.isoDate).joined(separator: " ")])
                }
            } catch {
                logger.warning("maintenance failed", ["error": String(describing: error)])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
