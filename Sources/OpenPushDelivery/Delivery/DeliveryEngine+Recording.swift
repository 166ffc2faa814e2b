import Foundation
import OpenPushCore
import Postgres

/// Recording: what one attempt at a job came to, written in the transaction that completes it.
extension DeliveryEngine {
    /// Runs `completion` again after a passing database failure (a lost connection, a timeout, a
    /// deadlock) for up to two thirds of a lease, which the renewal keeps meanwhile: the job's
    /// pushes have gone, and a completion given up means the job runs again after its lease and
    /// sends every one of them twice. Any other failure, or one that outlasts that, is thrown.
    func untilRecorded<T: Sendable>(_ job: DeliveryJob, _ completion: () async throws -> T) async throws -> T {
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

    /// Records one attempt at a job: each recipient's outcome decided (`DeliveryOutcome`), then
    /// in one transaction its records, events, dead tokens, paused apps and retries, whatever
    /// the transport. A broadcast keeps its outcome on its row instead of a delivery record.
    func record(_ job: DeliveryJob, batch: PushBatch, outcomes: [PushOutcome?], retryable: Bool) async throws {
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
                pushes.add(kind: job.tokenKind, state: .finished(state), reason: reason)
                if state == .accepted { pushes.addLatency(now - job.createdAt) }
            case .retry(let reason):
                completion.retry.append(recipient)
                pushes.add(kind: job.tokenKind, state: .queued, reason: reason)
            case .held(let reason):
                completion.held.append(recipient)
                pushes.add(kind: job.tokenKind, state: .queued, reason: reason)
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
                pushes.add(kind: job.tokenKind, state: .finished(.suppressed), reason: reason.rawValue)
            case .deferred(let until):
                completion.deferred[until, default: []].append(job.recipients[Int(delivery.id)])
            case .credentials(let reason):
                apply(delivery, .held(reason: reason))
                effects.append(.pauseApp(appID: delivery.appID, reason: reason))
            }
        }
        for group in batch.groups.values {
            // By index: a `for planned in` copied (retained and released) every field of each push.
            for index in group.indices {
                let delivery = group[index].delivery
                switch outcomes[Int(delivery.id)] {
                case .answered(let answer)?:
                    let (decision, effect) = DeliveryOutcome.decide(delivery, verdict: answer.verdict, invalidSince: answer.invalidSince,
                                                                    policy: policy, retryable: retryable)
                    apply(delivery, decision, status: answer.status)
                    if let effect { effects.append(effect) }
                    if case .deadToken = effect, case .finished(_, let reason) = decision {
                        deadTokenReasons[delivery.id] = reason
                    }
                    if answer.verdict == .accepted, let stamp = group[index].activityTimestamp {
                        stamps[stamp.activityID] = max(stamps[stamp.activityID] ?? stamp.timestamp, stamp.timestamp)
                    }
                case .unanswered(let reason, let permanent)?:
                    apply(delivery, permanent ? .finished(.error, reason: reason)
                                              : DeliveryOutcome.retry(delivery, reason: reason, policy: policy, retryable: retryable))
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
        // A broadcast's outcome is its row's (the notification view shows it), not a delivery record.
        let broadcast = job.tokenKind == .channel
            ? ChannelBroadcastStore.Outcome(completion, outcome: outcomes.first ?? nil, attempt: job.attempt) : nil
        var stored = completion
        if broadcast != nil { stored.records = [] }
        let kept = stored
        let completed = try await untilRecorded(job) {
            try await self.services.database.transaction(durability: DeliveryQueue.bookkeeping) { connection -> Bool in
                guard let tally = try DeliveryQueue.completeUncounted(job, worker: worker, with: kept, in: connection)
                else { return false }
                try DeliveryEvents.append(final.0.records, of: job, in: connection)
                if let broadcast { try ChannelBroadcastStore.record(broadcast, messageID: job.messageID, in: connection) }
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
