import Foundation
package import OpenPushCore
package import Postgres

/// Writes the files of recorded exports, in every serve and worker process (started with the
/// maintenance loop). A few producers per process each lease one job at a time
/// (`ExportStore.claim`: an app with a job in production waits, so apps take turns), read its
/// rows page by page on a connection of their own, gzip as they go and store the file in
/// chunks; they are woken by the request's NOTIFY, and look again every `idleWait` for a job
/// whose process died. The same task removes expired files every `Maintenance.interval`.
package enum ExportProducer {
    /// Producers per process: one app's large export leaves the others free for other apps.
    package static let producers = 2
    /// A NOTIFY lost while the listener reconnected, or a dead process's lease running out,
    /// is noticed within this.
    static let idleWait: Duration = .seconds(15)

    package static func loop(_ services: Services, logger: Logger) async {
        let token = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8))"
        // Its own connections without the request timeout: a page of a large app may be slow.
        let database = PostgresPool(conninfo: services.databaseConninfo, size: producers)
        let listener = PostgresListener(conninfo: services.databaseConninfo, channels: [ExportStore.channel])
        let wake = WakeSignal()
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                let notifications = listener.notifications
                group.addTask {
                    for await _ in notifications { wake.signalAll() }
                }
                for _ in 0..<producers {
                    group.addTask {
                        while !Task.isCancelled {
                            if (try? await runOnce(services, token: token, database: database, logger: logger)) == true { continue }
                            await wake.wait(timeout: idleWait)
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            let removed = try await ExportStore.prune(now: services.now(), in: services.database)
                            if removed > 0 { logger.info("exports expired", ["exports.removed": String(removed)]) }
                        } catch {
                            logger.warning("export pruning failed", ["error": String(describing: error)])
                        }
                        try? await Task.sleep(for: Maintenance.interval)
                    }
                }
            }
        } onCancel: {
            listener.stop()
            wake.close()
        }
        await database.close()
    }

    /// Claims one job and writes its file. False when there was nothing to claim. A failure is
    /// logged and the job given back for another try (`ExportStore.release`).
    @discardableResult
    package static func runOnce(_ services: Services, token: String, database: PostgresPool, logger: Logger) async throws -> Bool {
        let now = services.now()
        return try await database.withConnection { connection in
            guard let job = try ExportStore.claim(token: token, in: connection) else { return false }
            if job.attempts > ExportLimits.maxAttempts {
                try ExportStore.giveUp(job, in: connection)
                logger.warning("export given up", ["export.id": job.id, "app.id": job.appID])
                return true
            }
            do {
                try ExportStore.clearChunks(of: job, in: connection)
                let file = try ExportFileWriter(job: job, connection: connection)
                if job.kind == .subscriptions {
                    try writeSubscriptions(job, to: file, now: now, in: connection)
                } else {
                    try writeHistory(job, to: file, in: connection)
                }
                try file.finish()
                logger.info("export ready", ["export.id": job.id, "app.id": job.appID, "export.rows": String(file.rows)])
            } catch is ExportLeaseLost {
                logger.warning("export lease lost", ["export.id": job.id, "app.id": job.appID])
            } catch {
                logger.warning("export failed", ["export.id": job.id, "app.id": job.appID, "error": String(describing: error)])
                if connection.isHealthy { try? ExportStore.release(job, error: String(describing: error), in: connection) }
            }
            return true
        }
    }
}
