public import APNs
import Foundation
public import OpenPushCore
import Postgres
import Synchronization

/// The worker pool: claims queued deliveries in batches, turns them into pushes, streams them to
/// APNs over the client's long-lived HTTP/2 connections, and records each outcome. Woken by
/// `NOTIFY` on the delivery channel, and polls besides (retries come due without a notify).
public final class DeliveryEngine: Sendable {
    public struct Settings: Sendable {
        public var batchSize: Int = 1000
        /// Batches in flight at once per process.
        public var loops: Int = 4
        public var pollInterval: Duration = .milliseconds(500)
        public var retryPolicy = RetryPolicy()
        /// How long a claim holds rows before another worker may take them (renewed while in flight).
        public var leaseSeconds = DeliveryQueue.defaultLeaseSeconds
        /// Subscriptions one notification expansion step turns into delivery rows.
        public var expansionPageSize = 5000

        public init() {}
    }

    private let services: Services
    private let client: APNSClient
    private let settings: Settings
    private let logger: Logger
    private let worker: String
    private let credentials = CredentialCache()
    private let wake = WakeSignal()
    /// Where claims start scanning the queue, and when that was learned (see `DeliveryQueue.claim`).
    private let claimHint = Mutex<(dueFrom: Double, learnedAt: Double)?>(nil)
    static let claimHintLifetime: Double = 5
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Opened by `start`: an engine only driven through `runOnce` holds no LISTEN connection.
    private let listener = Mutex<PostgresListener?>(nil)

    public init(services: Services, client: APNSClient, settings: Settings = Settings(), logger: Logger) {
        self.services = services
        self.client = client
        self.settings = settings
        self.logger = logger
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
        var started = [Task { for await _ in notifications { wake.signal() } }]
        for _ in 0..<max(1, settings.loops) {
            started.append(Task { await self.loop() })
        }
        tasks.withLock { $0 = started }
    }

    /// Stops claiming; batches in flight finish and record their outcomes first.
    public func stop() async {
        listener.withLock { $0 }?.stop()
        let running = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks = [] }
            return tasks
        }
        running.forEach { $0.cancel() }
        wake.signal()
        for task in running { await task.value }
    }

    private func loop() async {
        while !Task.isCancelled {
            do {
                let processed = try await runOnce()
                if processed > 0 { continue }
            } catch {
                logger.warning("delivery batch failed", ["error": String(describing: error)])
            }
            await wake.wait(timeout: settings.pollInterval)
        }
    }

    /// Expands one page of a due notification, then claims and sends one batch; returns how
    /// many deliveries it handled, plus one when it expanded a page (0: nothing to do now).
    @discardableResult
    public func runOnce() async throws -> Int {
        let database = services.database
        let now = services.now()
        let worker = self.worker
        let batchSize = settings.batchSize
        let lease = settings.leaseSeconds
        let pageSize = settings.expansionPageSize
        let step = try await database.transaction {
            try NotificationExpansion.expandNextPage(now: now, pageSize: pageSize, in: $0)
        }
        let expanded = step == .idle ? 0 : 1
        let dueFrom = claimHint.withLock { hint -> Double? in
            guard let current = hint, now - current.learnedAt < Self.claimHintLifetime else {
                hint = nil
                return nil
            }
            return current.dueFrom
        }
        let (claimed, context) = try await database.withConnection { connection -> ([ClaimedDelivery], DeliveryContext) in
            let claimed = try DeliveryQueue.claim(limit: batchSize, worker: worker, now: now, leaseSeconds: lease,
                                                  dueFrom: dueFrom, in: connection)
            guard !claimed.isEmpty else { return ([], DeliveryContext()) }
            return (claimed, try DeliveryContext.load(for: claimed, in: connection))
        }
        claimHint.withLock { hint in
            guard let first = claimed.map(\.nextAttemptAt).min() else {
                hint = nil
                return
            }
            hint = (first, hint?.learnedAt ?? now)
        }
        guard !claimed.isEmpty else { return expanded }
        let batch = plan(claimed, context: context, now: now)
        let renewal = Task { await self.renewLeases(batch.sendIDs) }
        let results = await send(batch)
        renewal.cancel()
        try await record(batch, results: results)
        return claimed.count + expanded
    }

    // MARK: planning

    private struct Outgoing: Sendable {
        var delivery: ClaimedDelivery
        var plan: DeliveryPlanner.Plan
    }

    private struct Batch: Sendable {
        /// Grouped by (app, environment): one credential and endpoint per group.
        var groups: [String: [Outgoing]] = [:]
        var credentials: [String: APNSCredential] = [:]
        var refused: [(ClaimedDelivery, DeliveryPlanner.Refusal)] = []

        var sendIDs: [Int64] { groups.values.flatMap { $0.map(\.delivery.id) } }
    }

    private func plan(_ claimed: [ClaimedDelivery], context: DeliveryContext, now: Double) -> Batch {
        var batch = Batch()
        var timestamps: [String: Int] = [:]
        for delivery in claimed {
            switch DeliveryPlanner.plan(delivery, context: context, now: now, lastTimestamps: timestamps) {
            case .failure(let refusal):
                batch.refused.append((delivery, refusal))
            case .success(let plan):
                guard let app = context.app(for: delivery), let credential = credentials.credential(for: app) else {
                    batch.refused.append((delivery, .credentials(APNSReason.missingProviderToken.rawValue)))
                    continue
                }
                if let stamp = plan.activityTimestamp { timestamps[stamp.activityID] = stamp.timestamp }
                let key = delivery.appID + "/" + plan.environment
                batch.credentials[key] = credential
                batch.groups[key, default: []].append(Outgoing(delivery: delivery, plan: plan))
            }
        }
        return batch
    }

    // MARK: sending

    private func send(_ batch: Batch) async -> [Int64: Result<APNSResponse, APNSTransportError>] {
        await withTaskGroup(of: [(Int64, Result<APNSResponse, APNSTransportError>)].self) { group in
            for (key, outgoing) in batch.groups {
                guard let credential = batch.credentials[key] else { continue }
                let environment: APNSEnvironment = outgoing[0].plan.environment == "sandbox" ? .sandbox : .production
                let requests = outgoing.map { Self.wireRequest($0) }
                group.addTask {
                    let results = await self.client.send(requests, credential: credential, environment: environment)
                    return Array(zip(outgoing.map(\.delivery.id), results))
                }
            }
            var all: [Int64: Result<APNSResponse, APNSTransportError>] = [:]
            for await results in group {
                for (id, result) in results { all[id] = result }
            }
            return all
        }
    }

    private static func wireRequest(_ outgoing: Outgoing) -> APNSPushRequest {
        let headers = outgoing.plan.request.headers
        return APNSPushRequest(deviceToken: outgoing.delivery.token, pushType: headers.pushType, topic: headers.topic,
                               priority: headers.priority, expiration: Int64(headers.expiration), apnsID: headers.apnsID,
                               collapseID: headers.collapseID, payload: outgoing.plan.request.payloadBytes)
    }

    private func renewLeases(_ ids: [Int64]) async {
        let worker = self.worker
        let lease = settings.leaseSeconds
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(lease / 3))
            guard !Task.isCancelled else { return }
            let now = services.now()
            try? await services.database.withConnection {
                try DeliveryQueue.renewLease(ids, worker: worker, now: now, leaseSeconds: lease, in: $0)
            }
        }
    }

    // MARK: recording

    private func record(_ batch: Batch, results: [Int64: Result<APNSResponse, APNSTransportError>]) async throws {
        let now = services.now()
        let policy = settings.retryPolicy
        var updates: [DeliveryUpdate] = []
        var effects: [DeliveryOutcome.SideEffect] = []
        var stamps: [(String, Int)] = []
        for (delivery, refusal) in batch.refused {
            switch refusal {
            case .permanent(let reason):
                updates.append(DeliveryUpdate(id: delivery.id, state: .error, reason: reason))
            case .credentials(let reason):
                updates.append(DeliveryOutcome.paused(delivery, reason: reason))
                effects.append(.pauseApp(appID: delivery.appID, reason: reason))
            }
            services.metrics.recordPush(kind: delivery.tokenKind, state: "error", reason: refusal.reason)
        }
        for outgoing in batch.groups.values.flatMap({ $0 }) {
            let delivery = outgoing.delivery
            let update: DeliveryUpdate
            switch results[delivery.id] {
            case .success(let response)?:
                let verdict = APNSResponseClassifier.classify(status: response.status, reason: response.reason?.rawValue)
                let (decided, effect) = DeliveryOutcome.decide(delivery, verdict: verdict,
                                                               invalidSince: response.timestamp.map { Double($0) / 1000 },
                                                               policy: policy, now: now, jitter: Double.random(in: 0..<1))
                update = decided
                if let effect { effects.append(effect) }
                if verdict == .accepted, let stamp = outgoing.plan.activityTimestamp { stamps.append(stamp) }
            case .failure(let error)?:
                update = DeliveryOutcome.retry(delivery, reason: "Transport: \(error.kind.rawValue)", policy: policy, now: now,
                                               jitter: Double.random(in: 0..<1))
            case nil:
                update = DeliveryOutcome.retry(delivery, reason: "Transport: no result", policy: policy, now: now, jitter: 0.5)
            }
            updates.append(update)
            services.metrics.recordPush(kind: delivery.tokenKind, state: update.state.rawValue, reason: update.reason)
            if update.state == .accepted { services.metrics.recordDeliveryLatency(now - delivery.createdAt) }
        }
        let worker = self.worker
        let finalUpdates = updates
        let finalEffects = effects
        let finalStamps = stamps
        try await services.database.transaction { connection in
            try DeliveryQueue.apply(finalUpdates, worker: worker, now: now, in: connection)
            for effect in finalEffects {
                switch effect {
                case .deadToken(let delivery, let invalidSince) where delivery.tokenKind == "widget":
                    try WidgetTokens.forget(delivery, invalidSince: invalidSince, in: connection)
                case .deadToken(let delivery, let invalidSince):
                    try TokenDeath.record(delivery, invalidSince: invalidSince, now: now, in: connection)
                case .pauseApp(let appID, let reason):
                    try AppCredentialStatus.pause(appID: appID, reason: reason, now: now, in: connection)
                }
            }
            for (activityID, timestamp) in finalStamps {
                try connection.query("""
                    UPDATE live_activities SET last_push_timestamp = GREATEST(COALESCE(last_push_timestamp, 0), \(Int64(timestamp)))
                    WHERE id = \(activityID)
                    """)
            }
        }
        for case .pauseApp(let appID, let reason) in effects {
            logger.warning("APNs rejected the app's credentials: deliveries paused", ["app.id": appID, "apns.reason": reason])
        }
    }
}

extension DeliveryPlanner.Refusal {
    var reason: String {
        switch self {
        case .permanent(let reason), .credentials(let reason): reason
        }
    }
}
