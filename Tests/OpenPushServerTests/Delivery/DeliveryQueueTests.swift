import Foundation
import Testing
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The job queue: claims are exclusive and leased on PostgreSQL's clock, the urgent lane goes
/// first, apps take turns and are capped, and a completion writes each record once.
@Suite struct DeliveryQueueTests {
    /// A message of `app` with `jobs` jobs of `size` recipients in `lane`.
    @discardableResult
    static func queue(_ app: TestApp, appID: String, lane: DeliveryLane, jobs: Int = 1, size: Int = 2,
                      message: String = "msg_\(UUID().uuidString.prefix(8))") async throws -> String {
        try await app.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, request) VALUES (\(message), \(appID), 'notification', '{}')
                """)
            try DeliveryQueue.enqueue(messageID: message, appID: appID, lane: lane, tokenKind: .device, recipients: """
                SELECT 'sub_' || g AS subscription_id, lpad(to_hex(g), 64, '0') AS token, NULL::text AS live_activity_id,
                       NULL::int AS badge
                FROM generate_series(1, \(jobs * size)) AS g
                """, jobSize: size, in: connection)
        }
        return message
    }

    static func claim(_ app: TestApp, worker: String = "w", cap: Int = 10) async throws -> DeliveryJob? {
        try await app.services.database.transaction { try DeliveryQueue.claim(worker: worker, appCap: cap, in: $0) }
    }

    @Test func aSendWritesAHandfulOfJobsNotARowPerDevice() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        try await Self.queue(app, appID: appID, lane: .bulk, jobs: 3, size: 1000)
        let jobs = try await app.services.database.query("""
            SELECT cardinality(subscription_ids) AS n FROM delivery_jobs ORDER BY id
            """).map { try $0.decode("n", as: Int.self) }
        #expect(jobs == [1000, 1000, 1000])
        #expect(try await DeliveryQueue.depth(in: app.services.database) == 3000)
    }

    /// The recipients are given in the reverse of their ids' order: each job holds a run of that
    /// order, and entry i of every array is the same recipient. A Live Activity job holds the
    /// tokens read with its audience; a device or widget job none (its recipients' tokens are
    /// read when it runs).
    @Test(arguments: [TokenKind.update, .pushToStart, .device, .widget])
    func jobsKeepTheSendOrderAndTheirArraysAligned(kind: TokenKind) async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        try await app.services.database.transaction { connection in
            try connection.query("INSERT INTO messages (id, app_id, kind, request) VALUES ('msg_order', \(appID), 'notification', '{}')")
            try DeliveryQueue.enqueue(messageID: "msg_order", appID: appID, lane: .bulk, tokenKind: kind, recipients: """
                SELECT * FROM (
                    SELECT 'sub_' || lpad(g::text, 4, '0') AS subscription_id, 'tok' || g AS token, 'act' || g AS live_activity_id,
                           g AS badge
                    FROM generate_series(1, 2500) AS g ORDER BY g DESC
                ) AS given
                """, jobSize: 1000, in: connection)
        }
        let tokensHeld = try await app.services.database.query("SELECT cardinality(tokens) AS n FROM delivery_jobs ORDER BY id")
            .map { try $0.decode("n", as: Int.self) }
        #expect(tokensHeld == (kind.isReadWhenSent ? [0, 0, 0] : [1000, 1000, 500]))
        var seen: [Int] = []
        for _ in tokensHeld {
            let job = try #require(try await Self.claim(app))
            for recipient in job.recipients {
                let number = try #require(recipient.badge)
                #expect(recipient.subscriptionID == "sub_" + String(repeating: "0", count: 4 - String(number).count) + String(number))
                #expect(recipient.token == (kind.isReadWhenSent ? nil : "tok\(number)") && recipient.liveActivityID == "act\(number)")
                seen.append(number)
            }
            #expect(job.recipients.count == (seen.count <= 2000 ? 1000 : 500))
        }
        #expect(seen == Array((1...2500).reversed()))
    }

    @Test func claimsAreExclusiveAndComeBackWhenTheLeaseRunsOut() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        try await Self.queue(app, appID: appID, lane: .bulk, jobs: 2)
        let first = try #require(try await Self.claim(app, worker: "a"))
        let second = try #require(try await Self.claim(app, worker: "b"))
        #expect(first.id != second.id)
        #expect(try await Self.claim(app, worker: "c") == nil)
        // A worker that died: its lease runs out on PostgreSQL's clock and the job comes back.
        try await app.services.database.query("UPDATE delivery_jobs SET leased_until = now() - interval '1 second' WHERE id = \(first.id)")
        let again = try #require(try await Self.claim(app, worker: "c"))
        #expect(again.id == first.id)
        #expect(again.recipients == first.recipients)
    }

    @Test func theUrgentLaneGoesFirstAndAppsTakeTurns() async throws {
        let app = try await TestApp.make()
        let big = try await app.createApp().app.id
        let other = try await app.createApp().app.id
        // The big app's fan-out was queued first; the other app's jobs come later.
        try await Self.queue(app, appID: big, lane: .bulk, jobs: 4)
        try await Self.queue(app, appID: other, lane: .bulk, jobs: 2)
        try await Self.queue(app, appID: other, lane: .urgent, jobs: 1)
        var order: [(String, DeliveryLane)] = []
        while let job = try await Self.claim(app) { order.append((job.appID, job.lane)) }
        #expect(order.first! == (other, .urgent))
        // Then the bulk lane, the app with fewer jobs in flight first.
        let bulk = order.dropFirst().map(\.0)
        #expect(Array(bulk.prefix(4)) == [big, other, big, other], "\(bulk)")
        #expect(bulk.count == 6)
    }

    @Test func oneAppsJobsInFlightAreCapped() async throws {
        let app = try await TestApp.make()
        let big = try await app.createApp().app.id
        let other = try await app.createApp().app.id
        try await Self.queue(app, appID: big, lane: .urgent, jobs: 5)
        #expect(try await Self.claim(app, cap: 2)?.appID == big)
        #expect(try await Self.claim(app, cap: 2)?.appID == big)
        #expect(try await Self.claim(app, cap: 2) == nil, "the big app holds its cap")
        try await Self.queue(app, appID: other, lane: .bulk, jobs: 1)
        #expect(try await Self.claim(app, cap: 2)?.appID == other)
    }

    @Test func pausedAppsWait() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        try await Self.queue(app, appID: appID, lane: .urgent)
        try await app.services.database.query("UPDATE apps SET apns_paused_at = now() WHERE id = \(appID)")
        #expect(try await Self.claim(app) == nil)
    }

    @Test func aCompletionWritesEachRecordOnceAndQueuesTheRetries() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let message = try await Self.queue(app, appID: appID, lane: .bulk, jobs: 1, size: 3)
        let job = try #require(try await Self.claim(app, worker: "a"))
        var completion = DeliveryQueue.Completion()
        completion.records = [DeliveryRecord(job: job, recipient: job.recipients[0], state: .accepted, service: .apns),
                              DeliveryRecord(job: job, recipient: job.recipients[1], state: .error, service: .apns, reason: "BadDeviceToken")]
        completion.retry = [job.recipients[2]]
        completion.retryDelay = 60
        let outcome = completion
        // Another worker that lost the lease writes nothing.
        let stale = try await app.services.database.transaction {
            try DeliveryQueue.complete(job, worker: "b", with: outcome, in: $0)
        }
        #expect(!stale)
        let done = try await app.services.database.transaction {
            try DeliveryQueue.complete(job, worker: "a", with: outcome, in: $0)
        }
        #expect(done)
        // The apns-id is not stored: readers derive the one the push carried.
        let records = try await app.services.database.query("""
            SELECT id, state, apns_id IS NULL AS derived, \(DeliveryRecord.storedAPNSID)::text AS apns_id
            FROM deliveries WHERE message_id = \(message) ORDER BY id
            """)
        #expect(try records.map { try $0.decode("state", as: String.self) } == ["accepted", "error"])
        // Ids come from the job, not a sequence: its id, then each record's place.
        #expect(try records.map { try $0.decode("id", as: Int64.self) } == [job.id << 20, job.id << 20 | 1])
        #expect(try records.allSatisfy { try $0.decode("derived", as: Bool.self) })
        #expect(try records[0].decode("apns_id", as: String.self)
                == APNSIdentifier.derive(messageID: message, subscriptionID: job.recipients[0].subscriptionID, tokenKind: .device))
        // A retry carries no snapshot of its recipients: a push-to-start retry checks every token.
        let retry = try await app.services.database.query("""
            SELECT attempt, subscription_ids, due_at > now() + interval '50 seconds' AS later,
                   recipients_snapshot IS NULL AS unchecked FROM delivery_jobs
            """)
        #expect(retry.count == 1)
        #expect(try retry[0].decode("attempt", as: Int.self) == 2)
        #expect(try retry[0].decode("subscription_ids", as: [String].self) == [job.recipients[2].subscriptionID])
        #expect(try retry[0].decode("later", as: Bool.self))
        #expect(try retry[0].decode("unchecked", as: Bool.self))
    }

    @Test func suppressedRecordsAreCountedByReasonAndDeferredRecipientsWaitOnTheSameAttempt() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let message = try await Self.queue(app, appID: appID, lane: .bulk, jobs: 1, size: 4)
        let job = try #require(try await Self.claim(app, worker: "a"))
        var completion = DeliveryQueue.Completion()
        completion.records = [
            DeliveryRecord(job: job, recipient: job.recipients[0], state: .suppressed, service: .apns, reason: SuppressionReason.stale.rawValue),
            DeliveryRecord(job: job, recipient: job.recipients[1], state: .suppressed, service: .apns,
                           reason: SuppressionReason.coalesced.rawValue, carriedBy: "msg_newer"),
        ]
        let later = Date().timeIntervalSince1970 + 3600
        completion.deferred = [later: [job.recipients[2], job.recipients[3]]]
        let outcome = completion
        #expect(try await app.services.database.transaction { try DeliveryQueue.complete(job, worker: "a", with: outcome, in: $0) })

        let waiting = try await app.services.database.query("""
            SELECT attempt, cardinality(subscription_ids) AS n, extract(epoch FROM due_at)::float8 AS due FROM delivery_jobs
            """)
        #expect(waiting.count == 1)
        #expect(try waiting.firstRow().decode("attempt", as: Int.self) == job.attempt, "a deferral is not an attempt")
        #expect(try waiting.firstRow().decode("n", as: Int.self) == 2)
        #expect(abs(try waiting.firstRow().decode("due", as: Double.self) - later) < 0.01)

        let view = try #require(try await app.services.database.withConnection {
            try MessageView.find(messageID: message, appID: appID, in: $0)
        }?.objectValue)
        #expect(view["suppressed"] == ["coalesced": 1, "throttled": 0, "deduplicated": 0, "stale": 1, "muted": 0, "blank": 0, "no_token": 0])
        #expect(view["successful"] == 0)
        #expect(view["errored"] == 0)
        #expect(view["remaining"] == 2)
        #expect(view["completed_at"] == .null)
        let carried: String? = try await app.services.database.query("""
            SELECT carried_by FROM deliveries WHERE message_id = \(message) AND error_reason = 'coalesced'
            """).firstRow().decode("carried_by")
        #expect(carried == "msg_newer")
    }

    @Test func cancelRecordsTheWaitingRecipientsAndDropsRetriesOfJobsInFlight() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let message = try await Self.queue(app, appID: appID, lane: .bulk, jobs: 2, size: 2)
        let inFlight = try #require(try await Self.claim(app, worker: "a"))
        let waiting: Int64 = try await app.services.database.query(
            "SELECT id FROM delivery_jobs WHERE id <> \(inFlight.id)").firstRow().decode("id")
        try await app.services.database.transaction { connection in
            try connection.query("UPDATE messages SET cancelled_at = now() WHERE id = \(message)")
            try DeliveryQueue.cancel(messageID: message, in: connection)
        }
        var completion = DeliveryQueue.Completion()
        completion.records = [DeliveryRecord(job: inFlight, recipient: inFlight.recipients[0], state: .accepted, service: .apns)]
        completion.retry = [inFlight.recipients[1]]
        let outcome = completion
        _ = try await app.services.database.transaction { try DeliveryQueue.complete(inFlight, worker: "a", with: outcome, in: $0) }
        let states = try await app.services.database.query("""
            SELECT state, count(*)::int AS n FROM deliveries WHERE message_id = \(message) GROUP BY state ORDER BY state
            """).map { (try $0.decode("state", as: String.self), try $0.decode("n", as: Int.self)) }
        #expect(states.map(\.0) == ["accepted", "cancelled"])
        #expect(states.map(\.1) == [1, 3])
        // The waiting job's recipients are numbered in it, as the in-flight job's records are.
        let ids = try await app.services.database.query("""
            SELECT id FROM deliveries WHERE message_id = \(message) ORDER BY id
            """).map { try $0.decode("id", as: Int64.self) }
        #expect(ids == [inFlight.id << 20, inFlight.id << 20 | 1, waiting << 20, waiting << 20 | 1].sorted())
        #expect(try await DeliveryQueue.depth(in: app.services.database) == 0)
    }

    @Test func postgresAndSwiftDeriveTheSameAPNSID() async throws {
        let app = try await TestApp.make()
        let fromSQL: String = try await app.services.database.query("""
            SELECT openpush_apns_id('msg_1', 'sub_2', 'device')::text AS id
            """).firstRow().decode("id")
        #expect(fromSQL == APNSIdentifier.derive(messageID: "msg_1", subscriptionID: "sub_2", tokenKind: .device))
        #expect(UUID(uuidString: fromSQL) != nil)
    }

    @Test func anIdleQueueHasNothingToWaitFor() async throws {
        let app = try await TestApp.make()
        let wait = try await app.services.database.withConnection { try DeliveryQueue.secondsUntilNextDue(in: $0) }
        #expect(wait == nil, "an idle worker must sleep, not poll")
        let appID = try await app.createApp().app.id
        try await Self.queue(app, appID: appID, lane: .bulk)
        try await app.services.database.query("UPDATE delivery_jobs SET due_at = now() + interval '1 hour'")
        let later = try await app.services.database.withConnection { try DeliveryQueue.secondsUntilNextDue(in: $0) }
        #expect(later.map { $0 > 3000 && $0 <= 3600 } == true, "\(String(describing: later))")
    }
}
