public import APNs
import Foundation
public import OpenPushCore
import Postgres
import Synchronization

/// The worker pool: leases delivery jobs fairly (urgent lane first, apps taking turns, one app's
/// jobs in flight capped), turns each job into pushes, streams them to APNs over the client's
/// long-lived HTTP/2 connections, and completes the job in one transaction that appends every
/// recipient's record once. Woken by `NOTIFY`; idle, it sleeps until the next job is due.
public final class DeliveryEngine: Sendable {
    public struct Settings: Sendable {
        /// Recipients per job written by notification expansion.
        public var jobSize: Int = DeliveryQueue.defaultJobSize
        /// Jobs in flight at once per process. While one job's pushes are in flight, the next
        /// ones load and record: bench/fanout.sh went from ~27k to 31-40k pushes/s going from 4 to 8.
        public var loops: Int = 8
        /// Jobs of one app in flight at once, across processes: the rest wait, so another app's
        /// job always finds a free worker.
        public var appJobsInFlight: Int = 6
        /// The longest an idle loop sleeps without a NOTIFY: a safety net, not a poll.
        public var idleWake: Duration = .seconds(30)
        public var retryPolicy = RetryPolicy()
        /// How long a lease holds a job before another worker may take it (renewed while in flight).
        public var leaseSeconds = DeliveryQueue.defaultLeaseSeconds
        /// Subscriptions one notification expansion step turns into jobs.
        public var expansionPageSize = NotificationExpansion.defaultPageSize

        public init() {}
    }

    private let services: Services
    private let client: APNSClient
    private let settings: Settings
    private let logger: Logger
    private let worker: String
    private let credentials: CredentialCache
    private let wake = WakeSignal()
    private let stopping = Atomic<Bool>(false)
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

    public init(services: Services, client: APNSClient, settings: Settings = Settings(), logger: Logger) {
        self.services = services
        self.client = client
        self.settings = settings
        self.logger = logger
        credentials = CredentialCache(keyring: services.configuration.secretKeyring, logger: logger,
                                      retired: { old in Task { await client.retire(credential: old) } })
        worker = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8))"
    }

    public func start() {
        let client = self.client
        services.metrics.addGauges {
            let metrics = client.metrics
            return [("openpush_apns_connections_open", "HTTP/2 connections to APNs open now.", Double(metrics.openConnections)),
                    ("openpush_apns_streams_in_flight", "APNs requests awaiting an answer.", Double(metrics.inFlightStreams)),
                    ("openpush_apns_requests_waiting", "APNs requests waiting for a free stream.", Double(metrics.queuedRequests))]
        }
        let wake = self.wake
        // The pool's own conninfo: under `openpush dev` the configuration has no database URL.
        let listener = PostgresListener(conninfo: services.databaseConninfo, channels: [MessageStore.deliveryChannel])
        self.listener.withLock { $0 = listener }
        let notifications = listener.notifications
        var started = [Task {
            for await _ in notifications {
                self.expansionHint.withLock { $0.due = true; $0.generation += 1 }
                wake.signalAll()
            }
        }]
        for _ in 0..<max(1, settings.loops) {
            started.append(Task { await self.loop() })
        }
        tasks.withLock { $0 = started }
    }

    /// Takes no new job; jobs in flight finish, record their outcomes, and then the loops end.
    /// Nothing is cancelled, so a deploy sends nothing twice.
    public func stop() async {
        stopping.store(true, ordering: .sequentiallyConsistent)
        listener.withLock { $0 }?.stop()
        let running = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks = [] }
            return tasks
        }
        wake.close()
        // The first task relays NOTIFYs; it ends when the listener stops.
        for task in running { await task.value }
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    // A loop does not claim its next job while this one's pushes are in flight: tried, a job
    // leased ahead holds a place under the app cap without sending, and bench/delivery.sh's
    // live queue→accepted p99 came out worse (0.5–1.1 s against 0.14–0.64 s without).
    private func loop() async {
        while !isStopping {
            switch await nextStep() {
            case .idle:
                guard !isStopping else { return }
                await wake.wait(timeout: await idleWait())
            case .handled:
                wake.signal()
            case .job(let prepared):
                do {
                    try await deliver(prepared)
                } catch {
                    logger.warning("delivery job failed", ["error": String(describing: error)])
                }
                // Work is flowing: let another loop help with the next job.
                wake.signal()
            case .broadcast(let job, let renewal):
                do {
                    try await broadcast(job, renewal: renewal)
                } catch {
                    logger.warning("broadcast job failed", ["error": String(describing: error)])
                }
                wake.signal()
            }
        }
    }

    private func nextStep() async -> Step {
        do {
            return try await next()
        } catch {
            logger.warning("delivery job failed", ["error": String(describing: error)])
            return .idle
        }
    }

    /// Until the next job is due (at least a moment: a due job another app's cap holds back
    /// is retried shortly), at most `idleWake`.
    private func idleWait() async -> Duration {
        let seconds = (try? await services.database.withConnection { try DeliveryQueue.secondsUntilNextDue(in: $0) }) ?? nil
        guard let seconds else { return settings.idleWake }
        return min(settings.idleWake, .milliseconds(Int64(max(0.05, seconds) * 1000)))
    }

    /// What a loop does next: nothing is due, work was done without pushes (a page expanded,
    /// a message failed), or a job leased and planned, ready to send.
    private enum Step: Sendable {
        case idle
        case handled(Int)
        case job(Prepared)
        /// A channel broadcast's job (`ChannelBroadcastDelivery`), its lease being renewed.
        case broadcast(DeliveryJob, Task<Void, Never>)
    }

    /// A leased job, its context loaded and its pushes planned; its lease is renewed from the claim on.
    private struct Prepared: Sendable {
        var job: DeliveryJob
        var context: DeliveryContext
        var batch: Batch
        var renewal: Task<Void, Never>
        var lease: JobLease
        /// 1 when a page was expanded before the claim.
        var expanded: Int
    }

    /// Leases one job and, unless it is in the urgent lane, expands one page of a due
    /// notification (when the last claim saw one), then runs the job; returns how many
    /// recipients it handled, plus one when it expanded a page (0: nothing to do now).
    @discardableResult
    public func runOnce() async throws -> Int {
        switch try await next() {
        case .idle: return 0
        case .handled(let count): return count
        case .job(let prepared):
            try await deliver(prepared)
            return prepared.job.recipients.count + prepared.expanded
        case .broadcast(let job, let renewal):
            try await broadcast(job, renewal: renewal)
            return job.recipients.count
        }
    }

    private func next() async throws -> Step {
        guard !isStopping else { return .idle }
        let (due, generation) = expansionHint.withLock { ($0.due, $0.generation) }
        let worker = self.worker
        let lease = settings.leaseSeconds
        let cap = settings.appJobsInFlight
        let claim = try await services.database.withConnection {
            try DeliveryQueue.claimNext(worker: worker, leaseSeconds: lease, appCap: cap, in: $0)
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
        guard let job = claim.job else { return expanded > 0 ? .handled(expanded) : .idle }
        let jobLease = JobLease()
        let renewal = Task { await self.renewLease(job.id, lease: jobLease) }
        if job.tokenKind == .channel { return .broadcast(job, renewal) }
        let claimed = job.deliveries
        let context: DeliveryContext
        do {
            context = try await services.database.withConnection { try DeliveryContext.load(for: claimed, job: job, in: $0) }
        } catch let undecodable as UndecodableMessage {
            renewal.cancel()
            try await fail(job, reason: undecodable.reason)
            return .handled(job.recipients.count + expanded)
        } catch {
            renewal.cancel()
            throw error
        }
        let deliveries = context.withCurrentTokens(claimed)
        let batch: Batch
        do {
            // Delivery policy decided from PostgreSQL state (interval rules): what must not go now.
            var held: [Int64: DeliveryPlanner.Refusal] = [:]
            if PushIntervals.applies(to: job, deliveries: deliveries, context: context) {
                held = try await services.database.transaction {
                    try PushIntervals.decide(job, deliveries: deliveries, context: context, in: $0)
                }
            }
            let now = services.now()
            let planning = await withTaskExecutorPreference(PlanningExecutor.shared) {
                await self.plan(deliveries, context: context, now: now, held: held, lease: jobLease)
            }
            guard var planned = planning else {
                renewal.cancel()
                abandon(job)
                return .handled(expanded)
            }
            if context.message(forID: job.messageID, appID: job.appID)?.notification?.gates.dedupeKey != nil {
                try await claimDedupeKeys(&planned, context: context, now: services.now())
            }
            batch = planned
        } catch {
            renewal.cancel()
            throw error
        }
        return .job(Prepared(job: job, context: context, batch: batch, renewal: renewal, lease: jobLease, expanded: expanded))
    }

    private func broadcast(_ job: DeliveryJob, renewal: Task<Void, Never>) async throws {
        defer { renewal.cancel() }
        let credentials = self.credentials
        try await ChannelBroadcastDelivery(services: services, client: client, credential: { credentials.credential(for: $0) },
                                           worker: worker, policy: settings.retryPolicy, logger: logger).deliver(job)
    }

    private func deliver(_ prepared: Prepared) async throws {
        defer { prepared.renewal.cancel() }
        guard !prepared.lease.isLost else { return abandon(prepared.job) }
        let results = await send(prepared.batch, recipients: prepared.job.recipients.count, lane: prepared.job.lane)
        try await record(prepared.job, batch: prepared.batch, results: results, context: prepared.context)
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

    /// A job whose lease another worker took: nothing more of it is sent or recorded here.
    private func abandon(_ job: DeliveryJob) {
        logger.warning("a job's lease was taken by another worker: this one stops sending it", ["job.id": String(job.id)])
    }

    private func fail(_ job: DeliveryJob, reason: String) async throws {
        logger.error("message failed: its stored request does not decode", ["message.id": job.messageID, "reason": reason])
        try await services.database.transaction {
            try MessageLifecycleStore.apply(.failed(reason: reason), messageID: job.messageID, in: $0)
        }
        services.metrics.recordFailedMessage(stage: "build")
        for _ in job.recipients { services.metrics.recordPush(kind: job.tokenKind.rawValue, state: "error", reason: "MessageFailed") }
    }

    // MARK: planning

    private struct Outgoing: Sendable {
        var delivery: ClaimedDelivery
        var plan: DeliveryPlanner.Plan
    }

    /// One credential and endpoint: the pushes of one app to one APNs environment.
    private struct GroupKey: Hashable, Sendable {
        var appID: String
        var environment: DeviceEnvironment
    }

    private struct Batch: Sendable {
        var groups: [GroupKey: [Outgoing]] = [:]
        var credentials: [GroupKey: APNSCredential] = [:]
        var refused: [(ClaimedDelivery, DeliveryPlanner.Refusal)] = []
        /// Delivery id → the dedupe claim its push holds (`AlertDedupe`).
        var dedupeClaims: [Int64: AlertDedupe.Claim] = [:]
    }

    /// How long planning runs before it lets the other jobs waiting for the planning threads
    /// have their turn: a job whose recipients' templates are costly does not hold them.
    private static let planningSlice = Duration.milliseconds(2)

    /// The job's pushes, planned on the planning threads (`PlanningExecutor`) in slices; nil
    /// when the lease was lost meanwhile.
    private func plan(_ claimed: [ClaimedDelivery], context: DeliveryContext, now: Double,
                      held: [Int64: DeliveryPlanner.Refusal], lease: JobLease) async -> Batch? {
        var batch = Batch()
        var timestamps: [String: Int] = [:]
        var payloads = DeliveryPlanner.PayloadCache()
        // Each app's credential once per batch, not a cache lookup under its lock per recipient.
        var appCredentials: [String: Result<APNSCredential?, SealedSecretError>] = [:]
        let clock = ContinuousClock()
        var sliceEnd = clock.now + Self.planningSlice
        for delivery in claimed {
            if clock.now >= sliceEnd {
                await Task.yield()
                guard !lease.isLost else { return nil }
                sliceEnd = clock.now + Self.planningSlice
            }
            if let refusal = held[delivery.id] {
                batch.refused.append((delivery, refusal))
                continue
            }
            switch DeliveryPlanner.plan(delivery, context: context, now: now, lastTimestamps: timestamps, cache: &payloads) {
            case .failure(let refusal):
                batch.refused.append((delivery, refusal))
            case .success(let plan):
                let lookup: Result<APNSCredential?, SealedSecretError>
                if let known = appCredentials[delivery.appID] {
                    lookup = known
                } else {
                    lookup = context.app(for: delivery).map { credentials.lookup(for: $0) } ?? .success(nil)
                    appCredentials[delivery.appID] = lookup
                }
                let credential: APNSCredential
                switch lookup {
                case .success(let found?):
                    credential = found
                case .success(nil):
                    batch.refused.append((delivery, .credentials(APNSReason.missingProviderToken.rawValue)))
                    continue
                case .failure(let problem):
                    // Held with the app paused, as for a bad key: nothing is lost while the key is found.
                    batch.refused.append((delivery, .credentials(problem.reason)))
                    continue
                }
                if let stamp = plan.activityTimestamp { timestamps[stamp.activityID] = stamp.timestamp }
                let key = GroupKey(appID: delivery.appID, environment: plan.environment)
                if batch.credentials[key] == nil { batch.credentials[key] = credential }
                batch.groups[key, default: []].append(Outgoing(delivery: delivery, plan: plan))
            }
        }
        return batch
    }

    // MARK: dedupe

    /// Claims (app, dedupe key, device) in PostgreSQL, committed before any push goes, for every
    /// alert of a message with a `dedupe_key`; a device told already within the window is
    /// recorded `suppressed` (`deduplicated`) instead of sent.
    private func claimDedupeKeys(_ batch: inout Batch, context: DeliveryContext, now: Double) async throws {
        let wanted = batch.groups.values.flatMap { $0 }.compactMap { outgoing in
            AlertDedupe.claim(for: outgoing.delivery, context: context, now: now).map { (id: outgoing.delivery.id, claim: $0) }
        }
        guard !wanted.isEmpty else { return }
        let claims = wanted.map(\.claim)
        let won = try await services.database.transaction { try AlertDedupeStore.claim(claims, now: now, in: $0) }
        let (granted, deduplicated) = AlertDedupe.split(wanted, won: won)
        batch.dedupeClaims = granted
        guard !deduplicated.isEmpty else { return }
        for (key, outgoing) in batch.groups {
            for skipped in outgoing where deduplicated.contains(skipped.delivery.id) {
                batch.refused.append((skipped.delivery, .suppressed(.deduplicated)))
            }
            let kept = outgoing.filter { !deduplicated.contains($0.delivery.id) }
            batch.groups[key] = kept.isEmpty ? nil : kept
        }
    }

    // MARK: sending

    /// Each push's result at its delivery's id (its index in the job); nil for those not sent.
    /// Each app's pushes wait for APNs streams in a queue of their own (urgent ones ahead of its
    /// bulk), so a slow APNs does not make one app's backlog another's wait (`APNSSender`).
    private func send(_ batch: Batch, recipients: Int, lane: DeliveryLane) async -> [Result<APNSResponse, APNSTransportError>?] {
        await withTaskGroup(of: (ids: [Int64], results: [Result<APNSResponse, APNSTransportError>]).self) { group in
            for (key, outgoing) in batch.groups {
                guard let credential = batch.credentials[key] else { continue }
                let environment = Self.apnsEnvironment(outgoing[0].plan.environment)
                let pushes = outgoing.map { APNSPush(deviceToken: $0.delivery.token, request: $0.plan.request) }
                let ids = outgoing.map(\.delivery.id)
                let sender = APNSSender(tenant: key.appID, isUrgent: lane == .urgent)
                group.addTask {
                    (ids, await self.client.send(pushes, credential: credential, environment: environment, sender: sender))
                }
            }
            var all = [Result<APNSResponse, APNSTransportError>?](repeating: nil, count: recipients)
            for await sent in group {
                for (id, result) in zip(sent.ids, sent.results) { all[Int(id)] = result }
            }
            return all
        }
    }

    private static func apnsEnvironment(_ environment: DeviceEnvironment) -> APNSEnvironment {
        switch environment {
        case .production: .production
        case .sandbox: .sandbox
        }
    }

    /// Renews the job's lease every third of it until cancelled; marks `lease` lost, and stops,
    /// when the row no longer names this worker.
    private func renewLease(_ jobID: Int64, lease: JobLease) async {
        let worker = self.worker
        let seconds = settings.leaseSeconds
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(seconds / 3))
            guard !Task.isCancelled else { return }
            do {
                let held = try await services.database.withConnection {
                    try DeliveryQueue.renewLease(jobID: jobID, worker: worker, leaseSeconds: seconds, in: $0)
                }
                guard held else {
                    lease.markLost()
                    return
                }
            } catch {
                // The next renewal may still come in time; if none does, the job is run again
                // after its lease, and this says why.
                logger.warning("delivery lease renewal failed", ["job.id": String(jobID), "error": String(describing: error)])
            }
        }
    }

    // MARK: recording

    /// Runs `completion` again after a passing database failure (a lost connection, a timeout, a
    /// deadlock) for up to two thirds of a lease, which the renewal keeps meanwhile: the job's
    /// pushes have gone, and a completion given up means the job runs again after its lease and
    /// sends every one of them twice. Any other failure, or one that outlasts that, is thrown.
    private func untilRecorded<T: Sendable>(_ job: DeliveryJob, _ completion: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int64(settings.leaseSeconds * 2000 / 3))
        var pause = Duration.milliseconds(50)
        while true {
            do {
                return try await completion()
            } catch let error as PostgresError where error.isPassing && ContinuousClock.now + pause < deadline {
                logger.warning("recording a job's outcomes failed; trying again",
                               ["job.id": String(job.id), "error": String(describing: error)])
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }

    private func record(_ job: DeliveryJob, batch: Batch, results: [Result<APNSResponse, APNSTransportError>?],
                        context: DeliveryContext) async throws {
        let policy = settings.retryPolicy
        let now = services.now()
        var completion = DeliveryQueue.Completion()
        var effects: [DeliveryOutcome.SideEffect] = []
        // The highest timestamp accepted per activity: one UPDATE each, not one per push.
        var stamps: [String: Int] = [:]
        var releases: [AlertDedupe.Claim] = []
        // Delivery id → the APNs reason its token died of (`token.invalidated`).
        var deadTokenReasons: [Int64: String] = [:]
        var pushes = Metrics.PushTally()
        func apply(_ delivery: ClaimedDelivery, _ decision: DeliveryOutcome.Decision, status: Int? = nil) {
            let recipient = job.recipients[Int(delivery.id)]
            if let claim = batch.dedupeClaims[delivery.id], AlertDedupe.releases(after: decision) { releases.append(claim) }
            switch decision {
            case .finished(let state, let reason):
                completion.records.append(DeliveryRecord(job: job, recipient: recipient, state: state, reason: reason,
                                                         apnsStatus: status, apnsID: delivery.apnsID))
                pushes.add(kind: job.tokenKind.rawValue, state: state.rawValue, reason: reason)
                if state == .accepted { pushes.addLatency(now - job.createdAt) }
            case .retry(let reason):
                completion.retry.append(recipient)
                pushes.add(kind: job.tokenKind.rawValue, state: "queued", reason: reason)
            case .held(let reason):
                completion.held.append(recipient)
                pushes.add(kind: job.tokenKind.rawValue, state: "queued", reason: reason)
            }
        }
        for (delivery, refusal) in batch.refused {
            switch refusal {
            case .permanent(let reason): apply(delivery, .finished(.error, reason: reason))
            case .cancelled: apply(delivery, .finished(.cancelled, reason: nil))
            case .superseded: apply(delivery, .finished(.superseded, reason: nil))
            case .suppressed(let reason, let carriedBy):
                completion.records.append(DeliveryRecord(job: job, recipient: job.recipients[Int(delivery.id)],
                                                         state: .suppressed, reason: reason.rawValue,
                                                         apnsID: delivery.apnsID, carriedBy: carriedBy))
                pushes.add(kind: job.tokenKind.rawValue, state: DeliveryState.suppressed.rawValue,
                                            reason: reason.rawValue)
            case .deferred(let until):
                completion.deferred[until, default: []].append(job.recipients[Int(delivery.id)])
            case .credentials(let reason):
                apply(delivery, .held(reason: reason))
                effects.append(.pauseApp(appID: delivery.appID, reason: reason))
            }
        }
        // `ttl: 0` is now or never: a passing failure is final. A job holds one message.
        let retryable = context.message(forID: job.messageID, appID: job.appID)?.notification?.ttl != 0
        for group in batch.groups.values {
            // By index: a `for outgoing in` copied (retained and released) every field of each push.
            for index in group.indices {
                let delivery = group[index].delivery
                switch results[Int(delivery.id)] {
                case .success(let response)?:
                    let verdict = APNSResponseClassifier.classify(status: response.status, reason: response.reason?.rawValue)
                    let (decision, effect) = DeliveryOutcome.decide(delivery, verdict: verdict,
                                                                    invalidSince: response.timestamp.map { Double($0) / 1000 },
                                                                    policy: policy, retryable: retryable)
                    apply(delivery, decision, status: response.status)
                    if let effect { effects.append(effect) }
                    if case .deadToken = effect, case .finished(_, let reason) = decision {
                        deadTokenReasons[delivery.id] = reason
                    }
                    if verdict == .accepted, let stamp = group[index].plan.activityTimestamp {
                        stamps[stamp.activityID] = max(stamps[stamp.activityID] ?? stamp.timestamp, stamp.timestamp)
                    }
                case .failure(let error)? where error.isPermanent:
                    apply(delivery, .finished(.error, reason: "Transport: \(error.kind.rawValue)"))
                case .failure(let error)?:
                    apply(delivery, DeliveryOutcome.retry(delivery, reason: "Transport: \(error.kind.rawValue)", policy: policy,
                                                          retryable: retryable))
                case nil:
                    apply(delivery, DeliveryOutcome.retry(delivery, reason: "Transport: no result", policy: policy,
                                                          retryable: retryable))
                }
            }
        }
        services.metrics.record(pushes)
        completion.retryDelay = policy.delay(afterAttempt: job.attempt, jitter: Double.random(in: 0..<1)) ?? 0
        let worker = self.worker
        let final = (completion, effects, stamps, releases)
        let deadReasons = deadTokenReasons
        let completed = try await untilRecorded(job) {
            try await self.services.database.transaction(durability: DeliveryQueue.bookkeeping) { connection -> Bool in
                guard let tally = try DeliveryQueue.completeUncounted(job, worker: worker, with: final.0, in: connection)
                else { return false }
                try DeliveryEvents.append(final.0.records, of: job, in: connection)
                for effect in final.1 {
                    switch effect {
                    case .deadToken(let delivery, let invalidSince) where delivery.tokenKind == .widget:
                        try WidgetTokens.forget(delivery, invalidSince: invalidSince, reason: deadReasons[delivery.id],
                                                in: connection)
                    case .deadToken(let delivery, let invalidSince):
                        try TokenDeath.record(delivery, invalidSince: invalidSince, now: now, reason: deadReasons[delivery.id],
                                              in: connection)
                    case .pauseApp(let appID, let reason):
                        try AppCredentialStatus.pause(appID: appID, reason: reason, now: now, in: connection)
                    }
                }
                try AlertDedupeStore.release(final.3, in: connection)
                for (activityID, timestamp) in final.2 {
                    try connection.query(prepared: """
                        UPDATE live_activities SET last_push_timestamp = GREATEST(COALESCE(last_push_timestamp, 0), \(Int64(timestamp)))
                        WHERE id = \(activityID)
                        """)
                }
                // Last: it locks the message row, which every job of a fan-out shares, until commit.
                try DeliveryCounts.add(tally, messageID: job.messageID, in: connection)
                // Nothing of this job waits any more (or the message was cancelled): it may be the last.
                let waiting = !final.0.retry.isEmpty || !final.0.held.isEmpty || !final.0.deferred.isEmpty
                let cancelled = waiting ? try DeliveryQueue.isCancelled(job.messageID, in: connection) : false
                if !waiting || cancelled {
                    try MessageLifecycleStore.apply(.jobFinished, messageID: job.messageID, in: connection)
                }
                return true
            }
        }
        guard completed else {
            logger.warning("a job's lease ran out before it completed: another worker runs it again", ["job.id": String(job.id)])
            return
        }
        for case .pauseApp(let appID, let reason) in effects {
            logger.warning("APNs rejected the app's credentials: deliveries paused", ["app.id": appID, "apns.reason": reason])
        }
    }
}
