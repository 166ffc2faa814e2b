import Foundation
import OpenPushCore
import Postgres

/// Recording: what one attempt at a job came to, written in the transaction that completes it.
extension DeliveryEngine {
    /// Runs `completion` again after a passing database failure (a lost connection, a timeout, a
    /// deadlock) for up to two thirds of a lease, which the renewal keeps meanwhile: the job's
    /// pushes have gone, and a completion given up means the job runs again after its lease and
    /// sends every one of them twice. Any other failure, or one that outlasts that, is thrown.
    func untilRecorded<T: Sendable>(_ batch: JobBatch, _ completion: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int64(settings.leaseSeconds * 2000 / 3))
        var pause = Duration.milliseconds(50)
        while true {
            do {
                return try await completion()
            } catch let error as PostgresError where error.isPassing && ContinuousClock.now + pause < deadline {
                logger.warning("recording a job's outcomes failed; trying again",
                               ["job.id": batch.jobIDs.map(String.init).joined(separator: ","), "error": String(describing: error)])
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }

    /// Records one attempt at a batch: each recipient's outcome decided (`DeliveryOutcome`), then
    /// in one transaction every job's records, events, dead tokens, paused apps and retries,
    /// whatever the transport. A broadcast keeps its outcome on its row instead of a delivery
    /// record.
    func record(_ jobs: JobBatch, pushes batch: PushBatch, outcomes: [PushOutcome?], unretryable: Set<String>) async throws {
        let policy = settings.retryPolicy
        let now = services.now()
        var completions = Array(repeating: DeliveryQueue.Completion(), count: jobs.jobs.count)
        var effects: [DeliveryOutcome.SideEffect] = []
        // The highest timestamp accepted per activity: one UPDATE for them all, not one per push.
        var stamps: [String: Int] = [:]
        var releases: [(deliveryID: Int64, claim: AlertDedupe.Claim)] = []
        // Delivery id → the APNs reason its token died of (`token.invalidated`).
        var deadTokenReasons: [Int64: String] = [:]
        var pushes = Metrics.PushTally()
        // Per job: the longest `Retry-After` among its retried recipients (FCM `429`).
        var retryAfter: [Int: Double] = [:]
        // Per job: its web pushes answered, and those refused for their VAPID signature.
        var webPushes: [Int: (answered: Int, refused: Int)] = [:]
        func apply(_ delivery: ClaimedDelivery, _ decision: DeliveryOutcome.Decision, status: Int? = nil,
                   fcmMessageName: String? = nil, uniqueID: String? = nil, service: PushService) {
            let (index, position) = jobs.locate(delivery.id)
            let job = jobs.jobs[index], recipient = job.recipients[position]
            if let claim = batch.dedupeClaims[delivery.id], AlertDedupe.releases(after: decision) { releases.append((delivery.id, claim)) }
            switch decision {
            case .finished(let state, let reason):
                completions[index].records.append(DeliveryRecord(job: job, recipient: recipient, state: state, service: service,
                                                                 reason: reason, apnsStatus: status, apnsID: delivery.apnsID,
                                                                 fcmMessageName: fcmMessageName, apnsUniqueID: uniqueID))
                pushes.add(kind: job.tokenKind, state: .finished(state), reason: reason, service: service)
                if state == .accepted { pushes.addLatency(now - job.createdAt, service: service) }
            case .retry(let reason):
                completions[index].retry.append(recipient)
                completions[index].waitingServices[recipient.subscriptionID] = service
                pushes.add(kind: job.tokenKind, state: .queued, reason: reason, service: service)
            case .held(let reason):
                completions[index].held.append(recipient)
                completions[index].waitingServices[recipient.subscriptionID] = service
                pushes.add(kind: job.tokenKind, state: .queued, reason: reason, service: service)
            }
        }
        for (delivery, refusal, service) in batch.refused {
            switch refusal {
            case .permanent(let reason): apply(delivery, .finished(.error, reason: reason), service: service)
            case .cancelled: apply(delivery, .finished(.cancelled, reason: nil), service: service)
            case .superseded: apply(delivery, .finished(.superseded, reason: nil), service: service)
            case .suppressed(let reason, let carriedBy):
                let (index, position) = jobs.locate(delivery.id)
                let job = jobs.jobs[index]
                completions[index].records.append(DeliveryRecord(job: job, recipient: job.recipients[position],
                                                                 state: .suppressed, service: service, reason: reason.rawValue,
                                                                 apnsID: delivery.apnsID, carriedBy: carriedBy))
                pushes.add(kind: job.tokenKind, state: .finished(.suppressed), reason: reason.rawValue, service: service)
            case .deferred(let until):
                let (index, position) = jobs.locate(delivery.id)
                let recipient = jobs.jobs[index].recipients[position]
                completions[index].deferred[until, default: []].append(recipient)
                completions[index].waitingServices[recipient.subscriptionID] = service
            case .credentials(let reason):
                apply(delivery, .held(reason: reason), service: service)
                effects.append(.pauseApp(appID: delivery.appID, reason: reason))
            case .fcmCredentials(let reason):
                apply(delivery, .held(reason: reason), service: service)
                effects.append(.pauseFCM(appID: delivery.appID, reason: reason))
            case .webPushCredentials(let reason):
                apply(delivery, .held(reason: reason), service: service)
                effects.append(.pauseWebPush(appID: delivery.appID, reason: reason))
            }
        }
        for (key, group) in batch.groups {
            // By index: a `for planned in` copied (retained and released) every field of each push.
            for index in group.indices {
                let delivery = group[index].delivery
                let retryable = !unretryable.contains(delivery.messageID)
                switch outcomes[Int(delivery.id)] {
                case .answered(let answer)?:
                    let (decision, effect) = DeliveryOutcome.decide(delivery, verdict: answer.verdict, invalidSince: answer.invalidSince,
                                                                    policy: policy, retryable: retryable, service: answer.service)
                    apply(delivery, decision, status: answer.status, fcmMessageName: answer.messageName, uniqueID: answer.uniqueID,
                          service: answer.service)
                    if case .retry = decision, let seconds = answer.retryAfter {
                        let job = jobs.locate(delivery.id).job
                        // Bounded: a pause of days from one answer would outlive the push's ttl anyway.
                        retryAfter[job] = max(retryAfter[job] ?? 0, min(seconds, 3600))
                    }
                    if let effect { effects.append(effect) }
                    if answer.service == .webPush {
                        let job = jobs.locate(delivery.id).job
                        var counts = webPushes[job] ?? (0, 0)
                        counts.answered += 1
                        if case .credentials = answer.verdict { counts.refused += 1 }
                        webPushes[job] = counts
                    }
                    if case .deadToken = effect, case .finished(_, let reason) = decision {
                        deadTokenReasons[delivery.id] = reason
                    }
                    if answer.verdict == .accepted, let stamp = group[index].activityTimestamp {
                        stamps[stamp.activityID] = max(stamps[stamp.activityID] ?? stamp.timestamp, stamp.timestamp)
                    }
                case .unanswered(let reason, let permanent)?:
                    apply(delivery, permanent ? .finished(.error, reason: reason)
                                              : DeliveryOutcome.retry(delivery, reason: reason, policy: policy, retryable: retryable),
                          service: key.service)
                case nil:
                    apply(delivery, DeliveryOutcome.retry(delivery, reason: "Transport: no result", policy: policy,
                                                          retryable: retryable), service: key.service)
                }
            }
        }
        services.metrics.record(pushes)
        for (index, counts) in webPushes.sorted(by: { $0.key < $1.key })
        where DeliveryOutcome.pausesWebPush(webPushes: counts.answered, refused: counts.refused) {
            effects.append(.pauseWebPush(appID: jobs.jobs[index].appID, reason: DeliveryPlanner.vapidRefused))
        }
        for index in completions.indices {
            let backoff = policy.delay(afterAttempt: jobs.jobs[index].attempt, jitter: Double.random(in: 0..<1)) ?? 0
            completions[index].retryDelay = max(backoff, retryAfter[index] ?? 0)
        }
        let first = jobs.first
        // A broadcast's outcome is its row's (the notification view shows it), not a delivery record.
        let broadcast = first.tokenKind == .channel
            ? ChannelBroadcastStore.Outcome(completions[0], outcome: outcomes.first ?? nil, attempt: first.attempt) : nil
        let stored = broadcast == nil ? completions : completions.map { var kept = $0; kept.records = []; return kept }
        let completion = BatchCompletion(jobs: jobs, completions: completions, stored: stored, effects: effects, stamps: stamps,
                                    releases: releases, deadTokenReasons: deadTokenReasons, broadcast: broadcast, now: now)
        let worker = self.worker
        let completed = try await untilRecorded(jobs) {
            try await self.services.database.transaction(durability: DeliveryQueue.bookkeeping) { connection in
                try completion.write(worker: worker, in: connection)
            }
        }
        let lost = Set(jobs.jobIDs).subtracting(completed)
        if !lost.isEmpty {
            logger.warning("a job's lease ran out before it completed: another worker runs it again",
                           ["job.id": lost.sorted().map(String.init).joined(separator: ",")])
        }
        guard !completed.isEmpty else { return }
        for case .pauseApp(let appID, let reason) in effects {
            logger.warning("APNs rejected the app's credentials: deliveries paused", ["app.id": appID, "apns.reason": reason])
        }
        for case .pauseFCM(let appID, let reason) in effects {
            logger.warning("FCM rejected the app's service account: its Android pushes paused", ["app.id": appID, "fcm.reason": reason])
        }
        for case .pauseWebPush(let appID, let reason) in effects {
            logger.warning("push services refused the app's VAPID key: its web pushes paused", ["app.id": appID, "webpush.reason": reason])
        }
    }
}
