package import APNs
import Foundation
package import OpenPushCore
import Postgres
import Synchronization

/// The worker pool: leases delivery jobs fairly (urgent lane first, apps taking turns, one app's
/// jobs in flight capped), plans each job's pushes (`+Planning`), sends them through the
/// transport of the job's token kind (`PushTransports`: device pushes and channel broadcasts,
/// over one APNs client), and completes the job in one transaction that records every
/// recipient's classified outcome once (`+Recording`). Woken by `NOTIFY`; idle, it sleeps until
/// the next job is due.
package final class DeliveryEngine: Sendable {
    package struct Settings: Sendable {
        /// Recipients per job written by notification expansion, and at most per claimed batch.
        package var jobSize: Int = DeliveryQueue.defaultJobSize
        /// Jobs one claim leases at most: small jobs of one app (one-user messages) share a
        /// claim, a send to APNs and a completion. 1: a job per claim.
        package var batchJobs: Int = DeliveryQueue.defaultBatchJobs
        /// Jobs in flight at once per process. While one job's pushes are in flight, the next
        /// ones load and record: bench/fanout.sh went from ~27k to 31-40k pushes/s going from 4 to 8.
        package var loops: Int = 8
        /// Claims (batches) of one app in flight at once, across processes: the rest wait, so
        /// another app's job always finds a free worker.
        package var appJobsInFlight: Int = 6
        /// The longest an idle loop sleeps without a NOTIFY: a safety net, not a poll.
        package var idleWake: Duration = .seconds(30)
        package var retryPolicy = RetryPolicy()
        /// How long a lease holds a job before another worker may take it (renewed while in flight).
        package var leaseSeconds = DeliveryQueue.defaultLeaseSeconds
        /// Subscriptions one notification expansion step turns into jobs.
        package var expansionPageSize = NotificationExpansion.defaultPageSize

        package init() {}
    }

    let services: Services
    private let client: APNSClient
    /// The push services this engine sends through, over `client`.
    let transports: PushTransports
    let settings: Settings
    let logger: Logger
    let worker: String
    let credentials: CredentialCache
    let fcmAccounts: FCMAccountCache
    let webPushKeys: WebPushKeyCache
    private let wake = WakeSignal()
    private let stopping = Atomic<Bool>(false)
    private let claimsMade = Atomic<Int>(0)
    /// Claims run so far (tests count the claims a message costs).
    package var claims: Int { claimsMade.load(ordering: .relaxed) }
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Opened by `start`: an engine only driven through `runOnce` holds no LISTEN connection.
    private let listener = Mutex<PostgresListener?>(nil)
    /// Whether a notification may be due for expansion, as the last claim saw it; a NOTIFY
    /// (a new send) sets it again. Saves the expansion transaction before every claim.
    private let expansionHint = Mutex(ExpansionHint())

    private struct ExpansionHint {
        var due = true
        /// Counts NOTIFYs, so a claim that began before one cannot clear what it set.
        var generation = 0
    }

    package init(services: Services, client: APNSClient, settings: Settings = Settings(), logger: Logger) {
        self.services = services
        self.client = client
        transports = PushTransports(client: client, fcm: FCMDeviceTransport(configuration: services.configuration),
                                    webPush: WebPushDeviceTransport(configuration: services.configuration))
        // One APNs client per process: the channel routes manage channels with this one.
        services.apns.share(client)
        self.settings = settings
        self.logger = logger
        credentials = CredentialCache(keyring: services.configuration.secretKeyring, logger: logger,
                                      retired: { old in Task { await client.retire(credential: old) } })
        fcmAccounts = FCMAccountCache(keyring: services.configuration.secretKeyring, logger: logger)
        webPushKeys = WebPushKeyCache(keyring: services.configuration.secretKeyring,
                                      defaultSubject: services.configuration.webPushSubject, logger: logger)
        worker = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8))"
    }

    package func start() {
        let client = self.client
        services.metrics.addGauges {
            let metrics = client.metrics
            return [("openpush_apns_connections_open", "HTTP/2 connections to APNs open now.", Double(metrics.openConnections)),
                    ("openpush_apns_streams_in_flight", "APNs requests awaiting an answer.", Double(metrics.inFlightStreams)),
                    ("openpush_apns_requests_waiting", "APNs requests waiting for a free stream.", Double(metrics.queuedRequests))]
        }
        let wake = self.wake
        // The pool's own conninfo: under `openpush dev` the configuration has no database URL.
        let listener = PostgresListener(conninfo: services.databaseConninfo,
                                        channels: [MessageStore.deliveryChannel, MessageStore.jobsChannel])
        self.listener.withLock { $0 = listener }
        let notifications = listener.notifications
        var started = [Task {
            for await notification in notifications {
                if notification.channel != MessageStore.jobsChannel {
                    self.expansionHint.withLock { $0.due = true; $0.generation += 1 }
                }
                // One loop: it claims a batch, and wakes the next when it found work. Waking
                // every loop for each send cost a claim per loop per message.
                wake.signal()
            }
        }]
        for _ in 0..<max(1, settings.loops) {
            started.append(Task { await self.loop() })
        }
        tasks.withLock { $0 = started }
    }

    /// Takes no new job; jobs in flight finish, record their outcomes, and then the loops end.
    /// Nothing is cancelled, so a deploy sends nothing twice.
    package func stop() async {
        stopping.store(true, ordering: .sequentiallyConsistent)
        listener.withLock { $0 }?.stop()
        let running = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks = [] }
            return tasks
        }
        wake.close()
        // The first task relays NOTIFYs; it ends when the listener stops.
        for task in running { await task.value }
        // Nothing sends any more: the FCM and Web Push clients' threads can end (the APNs client
        // is its owner's).
        await transports.device.fcm.shutdown()
        await transports.device.webPush.shutdown()
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    // A loop does not claim its next job while this one's pushes are in flight: tried, a job
    // leased ahead holds a place under the app cap without sending, and bench/delivery.sh's
    // live queue→accepted p99 came out worse (0.5–1.1 s against 0.14–0.64 s without).
    private func loop() async {
        while !isStopping {
            switch await nextStep() {
            case .idle(let wait):
                guard !isStopping else { return }
                await wake.wait(timeout: await idleWait(wait))
            case .handled:
                wake.signal()
            case .job(let prepared):
                do {
                    try await deliver(prepared)
                } catch {
                    logger.warning("delivery job failed", ["error": String(describing: error)])
                }
                // Work is flowing: let another loop help, when the claim may have left some.
                // Waking one after every batch, at a trickle, cost a claim that found nothing
                // per message (this loop looks again itself, for when to sleep).
                if prepared.mayHaveLeftJobs { wake.signal() }
            }
        }
    }

    private func nextStep() async -> Step {
        do {
            return try await next()
        } catch {
            logger.warning("delivery job failed", ["error": String(describing: error)])
            return .idle(.unknown)
        }
    }

    /// Until the next job is due (at least a moment: a due job another app's cap holds back
    /// is retried shortly), at most `idleWake`. The claim that found nothing said when (no
    /// query); only after a failed claim is it asked.
    private func idleWait(_ wait: IdleWait) async -> Duration {
        let seconds: Double?
        switch wait {
        case .until(let known): seconds = known
        case .unknown: seconds = (try? await services.database.withConnection { try DeliveryQueue.secondsUntilNextDue(in: $0) }) ?? nil
        }
        guard let seconds else { return settings.idleWake }
        return min(settings.idleWake, .milliseconds(Int64(max(0.05, seconds) * 1000)))
    }

    /// What a loop does next: nothing is due, work was done without pushes (a page expanded,
    /// a message failed), or a job leased and planned, ready to send.
    private enum Step: Sendable {
        case idle(IdleWait)
        case handled(Int)
        case job(Prepared)
    }

    /// How long an idle loop may sleep: as the claim said (seconds until a job is due, nil:
    /// nothing waits), or not known (the claim failed).
    private enum IdleWait: Sendable {
        case until(Double?)
        case unknown
    }

    /// A leased batch, its pushes planned; its lease is renewed from the claim on.
    private struct Prepared: Sendable {
        var batch: JobBatch
        var pushes: PushBatch
        /// Messages whose pushes must not be tried twice (`ttl: 0`): a passing failure is final.
        var unretryable: Set<String>
        var renewal: Task<Void, Never>
        var lease: JobLease
        /// 1 when a page was expanded before the claim.
        var expanded: Int
        /// The claim's bounds may have left due jobs (`DeliveryQueue.Claim.mayHaveLeftJobs`).
        var mayHaveLeftJobs: Bool
    }

    /// Leases one batch of jobs and, unless it is in the urgent lane, expands one page of a due
    /// notification (when the last claim saw one), then runs the batch; returns how many
    /// recipients it handled, plus one when it expanded a page (0: nothing to do now).
    @discardableResult
    package func runOnce() async throws -> Int {
        switch try await next() {
        case .idle: return 0
        case .handled(let count): return count
        case .job(let prepared):
            try await deliver(prepared)
            return prepared.batch.recipientCount + prepared.expanded
        }
    }

    private func next() async throws -> Step {
        guard !isStopping else { return .idle(.until(nil)) }
        let (due, generation) = expansionHint.withLock { ($0.due, $0.generation) }
        let worker = self.worker
        let lease = settings.leaseSeconds
        let cap = settings.appJobsInFlight
        let (batchJobs, jobSize) = (settings.batchJobs, settings.jobSize)
        claimsMade.add(1, ordering: .relaxed)
        let claim = try await services.database.withConnection {
            try DeliveryQueue.claimNext(worker: worker, leaseSeconds: lease, appCap: cap, maxJobs: batchJobs, maxRecipients: jobSize,
                                        in: $0)
        }
        expansionHint.withLock { hint in
            if hint.generation == generation { hint.due = claim.expansionDue }
        }
        // One page per turn while one is due, but not ahead of a job of the urgent lane: a Live
        // Activity push does not wait while a loop expands another message's page. (A
        // notification that came due since the last look, a scheduled send, is expanded by a
        // turn that found no job.)
        let expands = due ? claim.job?.lane != .urgent : claim.job == nil && claim.expansionDue
        var expanded = 0
        if expands {
            do {
                expanded = try await expandOnePage()
            } catch let error where claim.job != nil {
                // The job is leased already: it still runs, and a later turn expands the page.
                logger.warning("expanding a page failed", ["error": String(describing: error)])
            }
        }
        guard !claim.jobs.isEmpty else { return expanded > 0 ? .handled(expanded) : .idle(.until(claim.secondsUntilNextDue)) }
        var batch = JobBatch(claim.jobs)
        let jobLease = JobLease(jobIDs: batch.jobIDs)
        let renewal = Task { await self.renewLease(jobLease) }
        var failed = 0
        while true {
            let planned: PlannedJob?
            do {
                planned = try await plan(batch, lease: jobLease)
            } catch let undecodable as UndecodableMessage {
                // That message fails, with every recipient of it; the rest of the batch still goes.
                try await fail(undecodable.messageID, jobs: batch.jobs, reason: undecodable.reason)
                failed += batch.jobs.filter { $0.messageID == undecodable.messageID }.reduce(0) { $0 + $1.recipients.count }
                guard let rest = batch.removing(messageID: undecodable.messageID) else {
                    renewal.cancel()
                    return .handled(failed + expanded)
                }
                batch = rest
                jobLease.keep(rest.jobIDs)
                continue
            } catch {
                renewal.cancel()
                throw error
            }
            guard let planned else {
                renewal.cancel()
                abandon(batch)
                return .handled(failed + expanded)
            }
            return .job(Prepared(batch: batch, pushes: planned.batch, unretryable: planned.unretryable, renewal: renewal,
                                 lease: jobLease, expanded: expanded,
                                 mayHaveLeftJobs: claim.mayHaveLeftJobs(maxJobs: batchJobs, maxRecipients: jobSize)))
        }
    }

    private func deliver(_ prepared: Prepared) async throws {
        defer { prepared.renewal.cancel() }
        guard !prepared.lease.isLost else { return abandon(prepared.batch) }
        let first = prepared.batch.first
        let transport = transports.transport(for: first.tokenKind)
        let outcomes = await transport.send(prepared.pushes, recipients: prepared.batch.recipientCount, lane: first.lane)
        try await record(prepared.batch, pushes: prepared.pushes, outcomes: outcomes, unretryable: prepared.unretryable)
    }

    /// One page of the next notification due for expansion; 1 when a page was expanded or failed.
    private func expandOnePage() async throws -> Int {
        let pageSize = settings.expansionPageSize
        let jobSize = settings.jobSize
        // A page lost in a crash is expanded again: its jobs and its cursor commit together.
        let step = try await services.database.transaction(durability: DeliveryQueue.bookkeeping) {
            try NotificationExpansion.expandNextPage(pageSize: pageSize, jobSize: jobSize, in: $0)
        }
        if case .failed(let messageID, let final, let reason) = step {
            logger.warning("a notification's audience could not be expanded",
                           ["message.id": messageID, "final": String(final), "reason": reason])
            if final { services.metrics.recordFailedMessage(stage: "expansion") }
        }
        return step == .idle ? 0 : 1
    }

    /// A batch a job of which another worker took: nothing more of it is sent or recorded here.
    private func abandon(_ batch: JobBatch) {
        logger.warning("a job's lease was taken by another worker: this one stops sending it",
                       ["job.id": batch.jobIDs.map(String.init).joined(separator: ",")])
    }

    /// A message that does not decode fails, with every recipient of it. A broadcast's is
    /// recorded on its row instead (its planning refuses it): it keeps no delivery records.
    private func fail(_ messageID: String, jobs: [DeliveryJob], reason: String) async throws {
        logger.error("message failed: its stored request does not decode", ["message.id": messageID, "reason": reason])
        let failed = jobs.filter { $0.messageID == messageID }
        let byJob = try await services.database.transaction { connection in
            try MessageLifecycleStore.apply(.failed(reason: reason), messageID: messageID, in: connection)
            return try failed.map { try RecipientServices.count($0.recipients, in: connection) }
        }
        services.metrics.recordFailedMessage(stage: "build")
        for (job, counts) in zip(failed, byJob) {
            for (service, count) in counts {
                for _ in 0..<count {
                    services.metrics.recordPush(kind: job.tokenKind, state: .finished(.error), reason: "MessageFailed",
                                                service: service)
                }
            }
        }
    }

    /// Renews the batch's leases every third of one until cancelled; marks `lease` lost, and
    /// stops, when a job's row no longer names this worker.
    private func renewLease(_ lease: JobLease) async {
        let worker = self.worker
        let seconds = settings.leaseSeconds
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(seconds / 3))
            guard !Task.isCancelled else { return }
            do {
                let jobIDs = lease.jobIDs
                let held = try await services.database.withConnection {
                    try DeliveryQueue.renewLease(jobIDs: jobIDs, worker: worker, leaseSeconds: seconds, in: $0)
                }
                guard held else {
                    lease.markLost()
                    return
                }
            } catch {
                // The next renewal may still come in time; if none does, the job is run again
                // after its lease, and this says why.
                logger.warning("delivery lease renewal failed",
                               ["job.id": lease.jobIDs.map(String.init).joined(separator: ","), "error": String(describing: error)])
            }
        }
    }
}
