import Foundation
import Testing
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Issue 39: small jobs of one app are claimed, sent and completed as one batch; a batch is one
/// claim in flight toward the app's cap, so another app's job still finds a free loop.
@Suite struct DeliveryBatchClaimTests {
    static func claim(_ app: TestApp, worker: String = "w", cap: Int = 10, maxJobs: Int = 128,
                      maxRecipients: Int = DeliveryQueue.defaultJobSize) async throws -> [DeliveryJob] {
        try await app.services.database.withConnection {
            try DeliveryQueue.claimNext(worker: worker, appCap: cap, maxJobs: maxJobs, maxRecipients: maxRecipients, in: $0).jobs
        }
    }

    @Test func oneClaimLeasesSeveralSmallJobsOfOneAppBoundedByTheJobSize() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp().app.id
        let other = try await app.createApp().app.id
        var messages: [String] = []
        for _ in 0..<5 { messages.append(try await DeliveryQueueTests.queue(app, appID: first, lane: .bulk, size: 1)) }
        try await DeliveryQueueTests.queue(app, appID: other, lane: .bulk, jobs: 2, size: 1)
        let batch = try await Self.claim(app)
        #expect(batch.count == 5)
        #expect(Set(batch.map(\.appID)) == [first], "a batch holds one app's jobs")
        #expect(Set(batch.map(\.messageID)) == Set(messages))
        // One claim in flight: every job of the batch names the same one.
        let claims = try await app.services.database.query("""
            SELECT count(DISTINCT leased_batch)::int AS n FROM delivery_jobs WHERE app_id = \(first) AND leased_by = 'w'
            """).firstRow().decode("n", as: Int.self)
        #expect(claims == 1)
        // The other app's jobs were left for another claim, which takes both.
        let next = try await Self.claim(app)
        #expect(next.map(\.appID) == [other, other])

        // Recipients add up to at most the job size: 3 + 3 of 7; a job larger than that goes alone.
        let third = try await app.createApp().app.id
        try await DeliveryQueueTests.queue(app, appID: third, lane: .bulk, jobs: 4, size: 3)
        #expect(try await Self.claim(app, maxRecipients: 7).map(\.recipients.count) == [3, 3])
        #expect(try await Self.claim(app, maxRecipients: 2).map(\.recipients.count) == [3])
        // A fan-out's job of the job size is a batch alone.
        try await DeliveryQueueTests.queue(app, appID: third, lane: .urgent, jobs: 3, size: 4)
        #expect(try await Self.claim(app, maxRecipients: 4).map(\.recipients.count) == [4])
    }

    @Test func anotherAppsJobIsClaimedWhileOneAppHasThousandsOfSmallJobsQueued() async throws {
        let app = try await TestApp.make()
        let busy = try await app.createApp().app.id
        let other = try await app.createApp().app.id
        try await DeliveryQueueTests.queue(app, appID: busy, lane: .bulk, jobs: 3000, size: 1)
        // Two claims of 128 jobs each: two claims in flight, not 256 jobs.
        #expect(try await Self.claim(app, cap: 3).count == 128)
        #expect(try await Self.claim(app, cap: 3).count == 128)
        #expect(try await Self.claim(app, cap: 3).count == 128, "a batch counts once toward the cap")
        #expect(try await Self.claim(app, cap: 3).isEmpty, "the busy app holds its cap")
        try await DeliveryQueueTests.queue(app, appID: other, lane: .bulk, jobs: 1, size: 1)
        let claimed = try await Self.claim(app, cap: 3)
        #expect(claimed.map(\.appID) == [other])
        // With nothing it may lease, the claim says when to look again: now (the busy app's jobs are due).
        let idle = try await app.services.database.withConnection {
            try DeliveryQueue.claimNext(worker: "w", appCap: 3, maxJobs: 128, in: $0)
        }
        #expect(idle.jobs.isEmpty)
        #expect(idle.secondsUntilNextDue.map { $0 <= 0 } == true, "\(String(describing: idle.secondsUntilNextDue))")
    }

    @Test func anEmptyQueueSaysHowLongToSleep() async throws {
        let app = try await TestApp.make()
        let idle = try await app.services.database.withConnection { try DeliveryQueue.claimNext(worker: "w", appCap: 3, in: $0) }
        #expect(idle.jobs.isEmpty && idle.secondsUntilNextDue == nil, "an idle worker must sleep, not poll")
        let appID = try await app.createApp().app.id
        try await DeliveryQueueTests.queue(app, appID: appID, lane: .bulk)
        try await app.services.database.query("UPDATE delivery_jobs SET due_at = now() + interval '1 hour'")
        let later = try await app.services.database.withConnection { try DeliveryQueue.claimNext(worker: "w", appCap: 3, in: $0) }
        #expect(later.jobs.isEmpty)
        #expect(later.secondsUntilNextDue.map { $0 > 3000 && $0 <= 3600 } == true, "\(String(describing: later.secondsUntilNextDue))")
    }

    @Test func aBatchCompletesInOneTransactionAndSkipsTheJobAnotherWorkerTook() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let other = try await app.createApp().app.id
        let accepted = try await DeliveryQueueTests.queue(app, appID: appID, lane: .bulk, size: 1)
        let failed = try await DeliveryQueueTests.queue(app, appID: appID, lane: .bulk, size: 1)
        let stolen = try await DeliveryQueueTests.queue(app, appID: appID, lane: .bulk, size: 1)
        let retried = try await DeliveryQueueTests.queue(app, appID: appID, lane: .bulk, size: 2)
        let untouched = try await DeliveryQueueTests.queue(app, appID: other, lane: .bulk, size: 1)
        let jobs = try await Self.claim(app, worker: "a")
        try #require(jobs.map(\.messageID) == [accepted, failed, stolen, retried])
        let stolenJob = jobs[2]
        try await app.services.database.query("""
            UPDATE delivery_jobs SET leased_by = 'b' WHERE id = \(stolenJob.id)
            """)
        let batch = JobBatch(jobs)
        var completions = Array(repeating: DeliveryQueue.Completion(), count: jobs.count)
        completions[0].records = [DeliveryRecord(job: jobs[0], recipient: jobs[0].recipients[0], state: .accepted, service: .apns, apnsStatus: 200)]
        completions[1].records = [DeliveryRecord(job: jobs[1], recipient: jobs[1].recipients[0], state: .error, service: .apns,
                                                 reason: "BadDeviceToken", apnsStatus: 400)]
        completions[2].records = [DeliveryRecord(job: jobs[2], recipient: jobs[2].recipients[0], state: .accepted, service: .apns, apnsStatus: 200)]
        completions[3].records = [DeliveryRecord(job: jobs[3], recipient: jobs[3].recipients[0], state: .accepted, service: .apns, apnsStatus: 200)]
        completions[3].retry = [jobs[3].recipients[1]]
        completions[3].retryDelay = 60
        let completion = BatchCompletion(jobs: batch, completions: completions, stored: completions, effects: [], stamps: [:],
                                         releases: [], deadTokenReasons: [:], broadcast: nil, now: Date().timeIntervalSince1970)
        let (held, statsWrites) = try await app.services.database.transaction(durability: DeliveryQueue.bookkeeping) { connection in
            let held = try completion.write(worker: "a", in: connection)
            // Rows this transaction wrote to the app's rollup: one upsert for the batch.
            let writes: Int = try connection.query("""
                SELECT (n_tup_ins + n_tup_upd)::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'delivery_stats'
                """).firstRow().decode("n")
            return (held, writes)
        }
        #expect(held == Set([jobs[0].id, jobs[1].id, jobs[3].id]))
        #expect(statsWrites == 1, "one rollup upsert per batch, not one per job")
        let records = try await app.services.database.query("""
            SELECT id, message_id, state FROM deliveries WHERE app_id = \(appID) ORDER BY id
            """).map { (try $0.decode("id", as: Int64.self), try $0.decode("message_id", as: String.self),
                        try $0.decode("state", as: String.self)) }
        // Record ids stay the job's id, then the record's place in the job.
        #expect(records.map(\.0) == [jobs[0].id << 20, jobs[1].id << 20, jobs[3].id << 20])
        #expect(records.map(\.1) == [accepted, failed, retried])
        #expect(records.map(\.2) == ["accepted", "error", "accepted"])
        // The job another worker holds is untouched, and nothing of it was recorded.
        #expect(try await app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE id = \(stolenJob.id) AND leased_by = 'b'
            """).firstRow().decode("n", as: Int.self) == 1)
        let counts = try await app.services.database.query("""
            SELECT id, counted_successful AS ok, counted_failed AS failed, completed_event_at IS NOT NULL AS completed
            FROM messages WHERE app_id = \(appID) ORDER BY id
            """)
        var byMessage: [String: (Int, Int, Bool)] = [:]
        for row in counts {
            byMessage[try row.decode("id")] = (try row.decode("ok"), try row.decode("failed"), try row.decode("completed"))
        }
        #expect(byMessage[accepted].map { $0 == (1, 0, true) } == true)
        #expect(byMessage[failed].map { $0 == (0, 1, true) } == true)
        #expect(byMessage[stolen].map { $0 == (0, 0, false) } == true)
        #expect(byMessage[retried].map { $0 == (1, 0, false) } == true, "its retry still waits")
        let stats = try await app.services.database.query("""
            SELECT sum(accepted)::int AS accepted, sum(failed)::int AS failed FROM delivery_stats WHERE app_id = \(appID)
            """).firstRow()
        #expect(try stats.decode("accepted", as: Int.self) == 2)
        #expect(try stats.decode("failed", as: Int.self) == 1)
        // Events: a row per job and type, as for jobs completed one by one.
        #expect(try await app.services.database.query("""
            SELECT count(*)::int AS n FROM events WHERE app_id = \(appID) AND type IN ('delivery.accepted', 'delivery.failed')
            """).firstRow().decode("n", as: Int.self) == 3)
        // The retry job, and the other app's job, wait.
        #expect(try await app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE message_id IN (\(retried), \(untouched)) AND leased_by IS NULL
            """).firstRow().decode("n", as: Int.self) == 2)
    }
}
