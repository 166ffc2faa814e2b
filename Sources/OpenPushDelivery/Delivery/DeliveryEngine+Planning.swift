import APNs
import OpenPushCore
import Postgres

/// Planning: a leased job's recipients turned into the pushes its transport sends, or into the
/// reason each will not be sent now.
extension DeliveryEngine {
    struct PlannedJob: Sendable {
        var batch: PushBatch
        /// Messages whose pushes must not be tried twice (`ttl: 0`): a passing failure is final.
        var unretryable: Set<String>
    }

    /// The batch's pushes, planned as its token kind is; nil when the lease was lost meanwhile.
    /// Its jobs' recipients are planned together: one context load (every message, app and
    /// device of the batch in one pipelined round trip), one pass of the planner. A message
    /// that does not decode throws `UndecodableMessage`.
    func plan(_ jobs: JobBatch, lease: JobLease) async throws -> PlannedJob? {
        let job = jobs.first
        if job.tokenKind == .channel {
            let credentials = self.credentials
            let now = services.now()
            let batch = try await services.database.withConnection {
                try ChannelBroadcastPlanning.plan(job, now: now, credentials: credentials, in: $0)
            }
            return PlannedJob(batch: batch, unretryable: [])
        }
        let claimed = jobs.deliveries
        // A job alone: PostgreSQL reads its own id arrays.
        let single = jobs.jobs.count == 1 ? job : nil
        var loaded = try await services.database.withConnection { try DeliveryContext.load(for: claimed, job: single, in: $0) }
        try await makeVAPIDKeys(claimed, context: &loaded)
        let context = loaded
        let deliveries = context.withCurrentTokens(claimed)
        // Delivery policy decided from PostgreSQL state (interval rules): what must not go now.
        // Only update and widget jobs go through one, and those are claimed alone.
        var held: [Int64: DeliveryPlanner.Refusal] = [:]
        if let single, PushIntervals.applies(to: single, deliveries: deliveries, context: context) {
            held = try await services.database.transaction {
                try PushIntervals.decide(single, deliveries: deliveries, context: context, in: $0)
            }
        }
        let now = services.now()
        let planning = await withTaskExecutorPreference(PlanningExecutor.shared) {
            await self.planDevices(deliveries, context: context, now: now, held: held, lease: lease)
        }
        guard var planned = planning else { return nil }
        let messages = jobs.messageIDs.compactMap { context.message(forID: $0, appID: job.appID) }
        if messages.contains(where: { $0.notification?.gates.dedupeKey != nil }) {
            try await claimDedupeKeys(&planned, context: context, now: services.now())
        }
        return PlannedJob(batch: planned, unretryable: Set(messages.filter { $0.notification?.ttl == 0 }.map(\.id)))
    }

    /// How long planning runs before it lets the other jobs waiting for the planning threads
    /// have their turn: a job whose recipients' templates are costly does not hold them.
    private static let planningSlice = Duration.milliseconds(2)

    /// The job's pushes, planned on the planning threads (`PlanningExecutor`) in slices; nil
    /// when the lease was lost meanwhile.
    private func planDevices(_ claimed: [ClaimedDelivery], context: DeliveryContext, now: Double,
                             held: [Int64: DeliveryPlanner.Refusal], lease: JobLease) async -> PushBatch? {
        var batch = PushBatch()
        var timestamps: [String: Int] = [:]
        var payloads = DeliveryPlanner.PayloadCache()
        // Each app's credential once per batch, not a cache lookup under its lock per recipient.
        var appCredentials: [String: Result<APNSCredential?, SealedSecretError>] = [:]
        var appAccounts: [String: Result<FCMServiceAccount?, SealedSecretError>] = [:]
        var appVAPIDKeys: [String: Result<WebPushVAPIDKey?, WebPushKeyCache.Problem>] = [:]
        // Each collapse id too long for a `Topic` digested once per batch.
        var topics: [String: String] = [:]
        let clock = ContinuousClock()
        var sliceEnd = clock.now + Self.planningSlice
        for delivery in claimed {
            if clock.now >= sliceEnd {
                await Task.yield()
                guard !lease.isLost else { return nil }
                sliceEnd = clock.now + Self.planningSlice
            }
            if let refusal = held[delivery.id] {
                batch.refused.append((delivery, refusal, context.subscription(for: delivery)?.service ?? .apns))
                continue
            }
            switch DeliveryPlanner.plan(delivery, context: context, now: now, lastTimestamps: timestamps, cache: &payloads) {
            case .failure(let refusal):
                batch.refused.append((delivery, refusal, context.subscription(for: delivery)?.service ?? .apns))
            case .success(let plan):
                switch plan.push {
                case .apns(let request, let environment):
                    let credential: APNSCredential
                    switch appCredentials.memoized(delivery.appID, {
                        context.app(for: delivery).map { credentials.lookup(for: $0) } ?? .success(nil)
                    }) {
                    case .success(let found?):
                        credential = found
                    case .success(nil):
                        batch.refused.append((delivery, .credentials(CredentialCache.missingReason(for: context.app(for: delivery))), .apns))
                        continue
                    case .failure(let problem):
                        // Held with the app paused, as for a bad key: nothing is lost while the key is found.
                        batch.refused.append((delivery, .credentials(problem.reason), .apns))
                        continue
                    }
                    if let stamp = plan.activityTimestamp { timestamps[stamp.activityID] = stamp.timestamp }
                    batch.add(PushBatch.Planned(delivery: delivery, request: .apns(request), activityTimestamp: plan.activityTimestamp),
                              environment: environment, credential: credential)
                case .fcm(_, let body):
                    switch appAccounts.memoized(delivery.appID, {
                        context.app(for: delivery).map { fcmAccounts.lookup(for: $0) } ?? .success(nil)
                    }) {
                    case .success(let account?):
                        batch.add(PushBatch.Planned(delivery: delivery, request: .fcm(body: body)), fcmAccount: account)
                    case .success(nil):
                        batch.refused.append((delivery, .permanent(DeliveryPlanner.missingFCMCredentials), .fcm))
                    case .failure(let problem):
                        // Its FCM sending paused, as for a refused service account.
                        batch.refused.append((delivery, .fcmCredentials(problem.reason), .fcm))
                    }
                case .webPush(var request):
                    switch appVAPIDKeys.memoized(delivery.appID, {
                        context.app(for: delivery).map { webPushKeys.lookup(for: $0) } ?? .success(nil)
                    }) {
                    case .success(let key?):
                        if let topic = request.topic, !WebPushTopic.isValid(topic) {
                            request.topic = topics.memoized(topic) { WebPushTopicDigest.digest(of: topic) }
                        }
                        batch.add(PushBatch.Planned(delivery: delivery, request: .webPush(request)), vapidKey: key)
                    case .success(nil):
                        batch.refused.append((delivery, .permanent(DeliveryPlanner.missingVAPIDKey), .webPush))
                    case .failure(.missingSubject):
                        batch.refused.append((delivery, .permanent(DeliveryPlanner.missingWebPushSubject), .webPush))
                    case .failure(.sealed(let problem)):
                        // Its web push paused, as for a refused key: nothing is lost while the key is found.
                        batch.refused.append((delivery, .webPushCredentials(problem.reason), .webPush))
                    }
                }
            }
        }
        return batch
    }

    // MARK: VAPID keys

    /// Makes the VAPID key of each app with browser recipients that has none yet (an app made
    /// before Web Push), and puts it in `context`.
    private func makeVAPIDKeys(_ deliveries: [ClaimedDelivery], context: inout DeliveryContext) async throws {
        var apps: Set<String> = []
        for delivery in deliveries where context.subscription(for: delivery)?.service == .webPush {
            if let app = context.app(for: delivery), app.webPushVAPIDKey == nil { apps.insert(app.id) }
        }
        guard !apps.isEmpty else { return }
        let keyring = services.configuration.secretKeyring
        for appID in apps.sorted() {
            guard let made = try await services.database.withConnection({
                try VAPIDKeyStore.ensure(appID: appID, keyring: keyring, in: $0)
            }), var app = context.app(id: appID) else { continue }
            app.webPushVAPIDKey = made.sealed
            app.webPushVAPIDPublicKey = made.publicKey
            context.add(app)
        }
    }

    // MARK: dedupe

    /// Claims (app, dedupe key, device) in PostgreSQL, committed before any push goes, for every
    /// alert of a message with a `dedupe_key`; a device told already within the window is
    /// recorded `suppressed` (`deduplicated`) instead of sent.
    private func claimDedupeKeys(_ batch: inout PushBatch, context: DeliveryContext, now: Double) async throws {
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
                batch.refused.append((skipped.delivery, .suppressed(.deduplicated), key.service))
            }
            let kept = outgoing.filter { !deduplicated.contains($0.delivery.id) }
            batch.groups[key] = kept.isEmpty ? nil : kept
        }
    }
}

extension Dictionary {
    /// The value at `key`, made by `make` and kept the first time it is asked for.
    fileprivate mutating func memoized(_ key: Key, _ make: () -> Value) -> Value {
        if let known = self[key] { return known }
        let made = make()
        self[key] = made
        return made
    }
}
