import OpenPushCore
import Postgres

/// What one attempt at a batch of jobs came to, ready to be written in the transaction that
/// completes it (`write`): the jobs' records and retries, their events, the side effects of
/// their outcomes (dead tokens, paused apps), dedupe keys to give back and Live Activity
/// timestamps. A job whose lease another worker took meanwhile writes none of it.
struct BatchCompletion: Sendable {
    var jobs: JobBatch
    /// Per job (in `jobs.jobs` order): its outcome, as the events see it.
    var completions: [DeliveryQueue.Completion]
    /// The same, as the queue stores it (a broadcast's records are kept on its row instead).
    var stored: [DeliveryQueue.Completion]
    var effects: [DeliveryOutcome.SideEffect]
    var stamps: [String: Int]
    var releases: [(deliveryID: Int64, claim: AlertDedupe.Claim)]
    var deadTokenReasons: [Int64: String]
    var broadcast: ChannelBroadcastStore.Outcome?
    var now: Double

    /// Writes the batch's completion: a statement per kind of write for the whole batch (the
    /// jobs removed with their whole batch rows, every other record in one COPY, the events in
    /// one append, the messages' counts and settles in one statement and the app's rollup rows
    /// once), and a statement per retry, dead token and paused app. Returns the ids of the
    /// jobs this worker still held (the others' are not recorded: their new holder runs them).
    func write(worker: String, in connection: PostgresConnection) throws -> Set<Int64> {
        let done = try DeliveryQueue.completeUncounted(jobs.jobs, worker: worker, with: stored, in: connection)
        guard !done.isEmpty else { return [] }
        let held = Set(done.map(\.job.id))
        let heldIndices = jobs.jobs.indices.filter { held.contains(jobs.jobs[$0].id) }
        let heldDelivery = { (id: Int64) in held.contains(jobs.jobs[jobs.locate(id).job].id) }
        try DeliveryEvents.append(heldIndices.map { (completions[$0].records, jobs.jobs[$0]) }, in: connection)
        if let broadcast { try ChannelBroadcastStore.record(broadcast, messageID: jobs.first.messageID, in: connection) }
        for effect in effects {
            switch effect {
            case .deadToken(let delivery, _) where !heldDelivery(delivery.id):
                continue
            case .deadToken(let delivery, let invalidSince) where delivery.tokenKind == .widget:
                try WidgetTokens.forget(delivery, invalidSince: invalidSince, reason: deadTokenReasons[delivery.id], in: connection)
            case .deadToken(let delivery, let invalidSince):
                try TokenDeath.record(delivery, invalidSince: invalidSince, now: now, reason: deadTokenReasons[delivery.id],
                                      in: connection)
            case .pauseApp(let appID, let reason):
                try AppCredentialStatus.pause(appID: appID, reason: reason, now: now, in: connection)
            case .pauseFCM(let appID, let reason):
                try AppCredentialStatus.pauseFCM(appID: appID, reason: reason, now: now, in: connection)
            case .pauseWebPush(let appID, let reason):
                try AppCredentialStatus.pauseWebPush(appID: appID, reason: reason, now: now, in: connection)
            }
        }
        try AlertDedupeStore.release(releases.filter { heldDelivery($0.deliveryID) }.map(\.claim), in: connection)
        if !stamps.isEmpty {
            let stamps = stamps.sorted { $0.key < $1.key }
            try connection.query(prepared: """
                UPDATE live_activities a SET last_push_timestamp = GREATEST(COALESCE(a.last_push_timestamp, 0), s.stamp)
                FROM unnest(\(stamps.map(\.key))::text[], \(stamps.map { Int64($0.value) })::int8[]) AS s(id, stamp)
                WHERE a.id = s.id
                """)
        }
        // Late: they lock the message rows, which every job of a fan-out shares, until commit.
        // Counted, and settled where nothing of a message's job waits any more (or it was
        // cancelled: it may be the last), in one statement, each row written once.
        try DeliveryCounts.addAndSettle(done.map { ($0.job.messageID, $0.tally, $0.finished) }, in: connection)
        // Last: every completion of the app takes these rows, so they are held for the shortest time.
        var stats: [PushService: DeliveryTally] = [:]
        for job in done { for (service, tally) in job.stats { stats[service, default: DeliveryTally()].add(tally) } }
        try DeliveryCounts.addToStats(stats, appID: jobs.first.appID, shard: DeliveryCounts.anyShard(), in: connection)
        return held
    }
}
