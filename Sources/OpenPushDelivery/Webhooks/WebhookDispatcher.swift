import Crypto
import Foundation
package import HTTPClient
package import OpenPushCore
import Postgres
import Synchronization

/// Sends the event outbox to webhook endpoints: leases due endpoints with pending events, POSTs
/// each one's next batch (up to 100 events, signed), and moves its cursor on a 2xx or schedules
/// a retry with backoff; after 24 h of failures the endpoint is disabled and its pending events
/// dropped. A few endpoints are worked at once per process, each on its own, so one slow or
/// failing endpoint holds back only itself; apps take turns for those slots and each gets at
/// most a share of them, so one app's slow endpoints cannot hold back another app's; nothing in
/// the push path waits on any of it.
/// Woken by `NOTIFY` on `EventOutbox.channel` and by the next due attempt; idle, it sleeps.
package final class WebhookDispatcher: Sendable {
    package struct Settings: Sendable {
        /// Endpoints in flight at once in this process.
        package var concurrency = 8
        /// Endpoints of one app in flight at once in this process (nil: a quarter of
        /// `concurrency`, at least 1), so slots stay free for the other apps.
        package var perAppConcurrency: Int? = nil
        /// How long resolving a webhook's host may take (getaddrinfo has no timeout of its own).
        package var resolveTimeout: Duration = .seconds(5)
        /// How often the loop moves idle endpoints' cursors past events they do not take.
        package var skipInterval: Duration = .seconds(5)
        /// Events per POST.
        package var batchSize = 100
        /// A 2xx within this is success (10 s; tests shorten it).
        package var requestTimeout: Duration = .seconds(10)
        /// How long a lease holds an endpoint for this process: past the request timeout.
        package var leaseSeconds: Double = 60
        /// The longest an idle dispatcher sleeps without a NOTIFY: a safety net, not a poll.
        package var idleWake: Duration = .seconds(30)
        /// NOTIFYs arriving within this of the first wake the dispatcher once: a fan-out commits
        /// a job (and NOTIFYs) every few milliseconds, and each wake costs a claim and a due query.
        package var wakeDebounce: Duration = .milliseconds(50)
        package var schedule = WebhookRetrySchedule()
        /// The database's clock as due times, leases and the retry window read it; tests advance it.
        package var clock = DatabaseClock()
        /// http:// and private, loopback or link-local answers allowed (`OPENPUSH_WEBHOOKS_ALLOW_PRIVATE`).
        package var allowPrivate = false

        package init() {}
    }

    private let services: Services
    private let client: HTTPClient
    private let settings: Settings
    private let logger: Logger
    private let jitter: @Sendable () -> Double
    private let wake = WakeSignal()
    /// A NOTIFY's wake is on its way (`Settings.wakeDebounce`).
    private let wakeScheduled = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// Attempts running, with their endpoint's app.
    private let inFlight = Mutex<[Int: (app: String, task: Task<Void, Never>)]>([:])
    private let nextTaskID = Atomic<Int>(0)
    private let driver = Mutex<Task<Void, Never>?>(nil)
    private let relay = Mutex<Task<Void, Never>?>(nil)
    private let listener = Mutex<PostgresListener?>(nil)
    /// Where `start`'s attempts run: below push delivery's priority, so events take the CPU
    /// delivery leaves and never slow the pushes (they catch up after a fan-out).
    private let attempts = Mutex<LowPriorityExecutor?>(nil)

    package init(services: Services, client: HTTPClient, settings: Settings = Settings(), logger: Logger,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.services = services
        self.client = client
        self.settings = settings
        self.logger = logger
        self.jitter = jitter
    }

    package func start() {
        let listener = PostgresListener(conninfo: services.databaseConninfo, channels: [EventOutbox.channel])
        self.listener.withLock { $0 = listener }
        let notifications = listener.notifications
        let wake = self.wake
        let debounce = settings.wakeDebounce
        relay.withLock {
            $0 = Task {
                for await _ in notifications {
                    // The first NOTIFY schedules one wake; those before it fires are in what it finds.
                    guard debounce > .zero else { wake.signalAll(); continue }
                    guard !self.wakeScheduled.exchange(true, ordering: .acquiringAndReleasing) else { continue }
                    Task {
                        try? await Task.sleep(for: debounce)
                        self.wakeScheduled.store(false, ordering: .sequentiallyConsistent)
                        wake.signalAll()
                    }
                }
            }
        }
        attempts.withLock { $0 = LowPriorityExecutor(name: "openpush-webhooks") }
        driver.withLock { $0 = Task { await self.loop() } }
    }

    /// Takes no new endpoint; attempts in flight finish (each within the request timeout) and
    /// record their outcome, then the loop ends.
    package func stop() async {
        stopping.store(true, ordering: .sequentiallyConsistent)
        listener.withLock { $0 }?.stop()
        wake.close()
        await driver.withLock { $0 }?.value
        await relay.withLock { $0 }?.value
        for entry in inFlight.withLock({ Array($0.values) }) { await entry.task.value }
        attempts.withLock { $0 }?.close()
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Endpoints of one app in flight at once here.
    var perAppConcurrency: Int { settings.perAppConcurrency ?? max(1, settings.concurrency / 4) }

    /// This process's attempts in flight, by app.
    private var busyApps: [String: Int] {
        inFlight.withLock { tasks in tasks.values.reduce(into: [:]) { $0[$1.app, default: 0] += 1 } }
    }

    private func loop() async {
        var nextSkip = ContinuousClock.now
        while !isStopping {
            let busy = busyApps
            let free = settings.concurrency - busy.values.reduce(0, +)
            var claimed = 0
            if free > 0 {
                do {
                    if ContinuousClock.now >= nextSkip {
                        try await skipUnwanted()
                        nextSkip = ContinuousClock.now + settings.skipInterval
                    }
                    let claims = try await claim(limit: free, busy: busy)
                    claimed = claims.count
                    for claim in claims { spawn(claim) }
                } catch {
                    logger.warning("webhook claim failed", ["error": String(describing: error)])
                }
            }
            if free > 0, claimed == free { continue }
            guard !isStopping else { break }
            await wake.wait(timeout: await idleWait())
        }
    }

    private func spawn(_ claim: WebhookClaim) {
        let id = nextTaskID.add(1, ordering: .relaxed).newValue
        let executor = attempts.withLock { $0 }
        inFlight.withLock { tasks in
            tasks[id] = (claim.appID, Task(executorPreference: executor) {
                _ = await self.attempt(claim)
                self.inFlight.withLock { _ = $0.removeValue(forKey: id) }
                self.wake.signal()
            })
        }
    }

    /// Until the next endpoint may be attempted: at least a moment (a quarter second while an
    /// event waits for an older transaction to end, or a lease about to end), at most `idleWake`.
    /// Apps using their whole share are left out: one of their attempts ending wakes the loop.
    private func idleWait() async -> Duration {
        let clock = settings.clock
        let full = busyApps.filter { $0.value >= perAppConcurrency }.map(\.key)
        let seconds = (try? await services.database.withConnection {
            try WebhookDispatchStore.secondsUntilNextDue(excluding: full, clock: clock, in: $0)
        }) ?? nil
        guard let seconds else { return settings.idleWake }
        return min(settings.idleWake, .milliseconds(Int64(max(0.25, seconds) * 1000)))
    }

    private func claim(limit: Int, busy: [String: Int] = [:]) async throws -> [WebhookClaim] {
        let token = UUID().uuidString
        let lease = leaseSeconds
        let clock = settings.clock
        let perApp = perAppConcurrency
        return try await services.database.withConnection {
            try WebhookDispatchStore.claim(limit: limit, perApp: perApp, busy: busy, leaseSeconds: lease, token: token,
                                           clock: clock, in: $0)
        }
    }

    private func skipUnwanted() async throws {
        let clock = settings.clock
        _ = try await services.database.withConnection { try WebhookDispatchStore.skipUnwanted(clock: clock, in: $0) }
    }

    /// Moves idle endpoints' cursors, then claims and attempts up to `concurrency` due endpoints
    /// (at most `perAppConcurrency` of one app) once, waiting for each; returns how many were
    /// attempted. An endpoint found with no event to read (its events still wait for an older
    /// transaction to end) is released unsent and not counted. For tests and tools: `start`
    /// runs the same thing continuously.
    @discardableResult
    package func runOnce() async throws -> Int {
        try await skipUnwanted()
        let claims = try await claim(limit: settings.concurrency)
        return await withTaskGroup(of: Bool.self) { group in
            for claim in claims { group.addTask { await self.attempt(claim) } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    /// Batches one lease sends in a row before the endpoint goes back to the queue, so a
    /// backlog drains without a claim per batch and other endpoints still get their turn.
    static let batchesPerLease = 20

    /// One attempt at one leased endpoint: its next events (up to `batchesPerLease` batches),
    /// read in one go from the cursor the lease found, then sent one batch after another. The
    /// cursor is written once, when the lease ends: after the last batch (released), with the
    /// first failure (in the transaction that records it), or when half the lease has gone by
    /// with batches still to send (renewed). A crash in between resends at most the batches
    /// sent since the last write: one lease's read, `batchesPerLease` × `batchSize` events.
    /// Returns false when it found no event to read and released the endpoint unsent.
    private func attempt(_ claim: WebhookClaim) async -> Bool {
        do {
            let batchSize = max(1, settings.batchSize)
            let events = try await services.database.withConnection {
                try WebhookDispatchStore.batch(for: claim, after: claim.cursor, limit: batchSize * Self.batchesPerLease, in: $0)
            }
            guard !events.isEmpty else {
                try await services.database.withConnection { try WebhookDispatchStore.release(claim, in: $0) }
                return false
            }
            let lease = leaseSeconds
            let clock = settings.clock
            var written = ContinuousClock.now
            var unwritten: EventPosition? = nil
            var start = 0
            while start < events.count {
                let end = min(start + batchSize, events.count)
                let batch = events[start..<end]
                if case .failure(let failure) = await send(batch, to: claim) {
                    metrics.recordFailed(app: claim.appID, events: batch.count)
                    try await recordFailure(failure, claim: claim, sent: unwritten)
                    return true
                }
                metrics.recordSent(app: claim.appID, events: batch.count)
                unwritten = batch[batch.index(before: end)].position
                start = end
                let more = start < events.count && !isStopping
                guard more else { break }
                if ContinuousClock.now - written > .milliseconds(Int64(lease * 500)), let sent = unwritten {
                    let held = try await services.database.withConnection {
                        try WebhookDispatchStore.recordSuccess(claim, last: sent, renewingLeaseFor: lease, clock: clock, in: $0)
                    }
                    guard held else { return true }
                    written = ContinuousClock.now
                    unwritten = nil
                }
            }
            let sent = unwritten
            try await services.database.withConnection { connection in
                if let sent {
                    try WebhookDispatchStore.recordSuccess(claim, last: sent, clock: clock, in: connection)
                } else {
                    try WebhookDispatchStore.release(claim, in: connection)
                }
            }
            return true
        } catch {
            logger.warning("webhook attempt failed", ["webhook.id": claim.id, "error": String(describing: error)])
            return true
        }
    }

    private var metrics: WebhookMetrics { services.metrics.webhooks }

    /// How long a lease holds: past three request timeouts.
    private var leaseSeconds: Double { max(settings.leaseSeconds, Double(settings.requestTimeout.components.seconds) * 3) }

    /// Records a failed batch in one transaction: first the batches this lease sent before it
    /// (`sent`: the cursor moves past them and their success ends the failure streak, as if
    /// written when each was answered), then the failure, retried or disabled as the schedule says.
    private func recordFailure(_ failure: Failure, claim: WebhookClaim, sent: EventPosition?) async throws {
        let schedule = settings.schedule
        let jitter = self.jitter()
        let clock = settings.clock
        let lease = leaseSeconds
        let outcome = try await services.database.transaction { connection -> WebhookDispatchStore.FailureOutcome in
            if let sent, !(try WebhookDispatchStore.recordSuccess(claim, last: sent, renewingLeaseFor: lease, clock: clock,
                                                                    in: connection)) {
                return .leaseLost
            }
            guard let streak = try WebhookDispatchStore.failureStreak(claim, clock: clock, in: connection) else { return .leaseLost }
            let decision = schedule.afterFailure(previousFailures: streak.previousFailures, failingSince: streak.failingSince,
                                                 now: streak.now, jitter: jitter)
            return try WebhookDispatchStore.recordFailure(claim, status: failure.status, reason: failure.reason,
                                                          decision: decision, clock: clock, in: connection)
        }
        if case .disabled(let reason) = outcome {
            logger.warning("webhook disabled", ["webhook.id": claim.id, "app.id": claim.appID, "reason": reason])
        } else if case .retry(let delay) = outcome {
            logger.info("webhook attempt failed", ["webhook.id": claim.id, "app.id": claim.appID,
                                                   "reason": failure.reason, "retry.seconds": String(Int(delay))])
        }
    }

    /// The peer check at connect time (shared with Web Push): the address libcurl actually
    /// connects to must be public, whatever resolved it (the pin above, or libcurl itself for a
    /// name it rewrote).
    static let publicPeersOnly = HTTPClientRequest.publicPeersOnly

    /// Why an attempt failed: the status when one came, and what happened in words.
    struct Failure: Error, Sendable {
        var status: Int?
        var reason: String
    }

    private func send(_ events: ArraySlice<StoredEvent>, to claim: WebhookClaim) async -> Result<Void, Failure> {
        // A row stored before the routes checked hosts (or written by other means): a host libcurl
        // would decode or convert is never handed to it.
        if let problem = WebhookURL.sendProblem(claim.url) {
            return .failure(Failure(reason: "refused url: \(problem.message)"))
        }
        guard let target = WebhookTarget(url: claim.url) else {
            return .failure(Failure(reason: "invalid URL"))
        }
        guard target.scheme == "https" || settings.allowPrivate else {
            return .failure(Failure(reason: "refused http:// (only https:// is allowed)"))
        }
        let addresses: [NetworkAddress]
        switch await WebhookHostResolver.resolve(host: target.host, port: target.port, timeout: settings.resolveTimeout) {
        case .success(let resolved): addresses = resolved
        case .failure(let failure): return .failure(Failure(reason: failure.message))
        }
        if !settings.allowPrivate, let refused = addresses.first(where: { !$0.isPublic }) {
            return .failure(Failure(reason: "refused address \(refused) (\(refused.kind.rawValue))"))
        }
        // libcurl connects only to the addresses checked here: it never resolves the host again.
        let pinned = "\(target.resolveHost):\(target.port):"
            + addresses.map { $0.isIPv6 ? "[\($0)]" : "\($0)" }.joined(separator: ",")
        let body = StoredEvent.webhookBody(events)
        let timestamp = Int64(services.now())
        let payload = WebhookSignature.signedPayload(timestamp: timestamp, body: body)
        let secrets: [String]
        switch claim.signingSecrets(keyring: services.configuration.secretKeyring, now: services.now()) {
        case .success(let opened): secrets = opened
        case .failure(let problem): return .failure(Failure(reason: "the webhook's signing secret is \(problem)"))
        }
        let signatures = secrets.map { HMACSHA256.authenticationCode(key: Array($0.utf8), message: payload).hexString }
        let request = HTTPClientRequest(
            url: claim.url, method: "POST",
            headers: [("Content-Type", "application/json"),
                      (WebhookSignature.webhookIDHeaderName, claim.id),
                      (WebhookSignature.headerName, WebhookSignature.header(timestamp: timestamp, signatures: signatures))],
            body: body, timeout: settings.requestTimeout, pinnedAddresses: [pinned], maxResponseBytes: 4096,
            peerFilter: settings.allowPrivate ? nil : Self.publicPeersOnly)
        do {
            let response = try await client.send(request)
            guard (200..<300).contains(response.status) else {
                return .failure(Failure(status: response.status, reason: "last status \(response.status)"))
            }
            return .success(())
        } catch .timedOut {
            return .failure(Failure(reason: "timed out after \(settings.requestTimeout)"))
        } catch {
            return .failure(Failure(reason: "\(error)"))
        }
    }
}
