import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Delivery records live in daily partitions that maintenance drops after the retention, while
/// `GET /notifications/{id}` keeps answering exactly as before.
@Suite struct DeliveryRetentionTests {
    /// An app with one device, a clock fixed at `now`, and the day that is 40 days back
    /// (past the default 30-day retention) with a partition of its own.
    struct World {
        let app: TestApp
        let appID: String
        let restKey: String
        let device: String
        let now: Double
        var today: UTCDay { UTCDay(containing: now) }

        static func make(now: Double = WallClock.now()) async throws -> World {
            let app = try await TestApp.make(now: { now })
            let created = try await app.createApp()
            let device = try await app.insertSubscription(appID: created.app.id, token: String(repeating: "ab", count: 32))
            return World(app: app, appID: created.app.id, restKey: created.restKey, device: device, now: now)
        }

        func createPartition(_ day: UTCDay) async throws {
            try await app.services.database.query(
                "SELECT openpush_delivery_partitions(\(day.isoDate)::date, \(day.isoDate)::date)")
        }

        /// A message whose first record (accepted) is written at `at`.
        func message(at time: Double) async throws -> String {
            try await app.insertLiveActivityPush(appID: appID, subscriptionID: device, activityID: "order-1", at: time)
        }

        /// An accepted record is written as its job's batch (of one), as the engine writes it;
        /// every other state as a row.
        func record(_ messageID: String, _ state: String, reason: String? = nil, clicked: Bool = false,
                    at time: Double) async throws {
            let database = app.services.database
            let recorded: PostgresRow
            if state == "accepted" {
                recorded = try await database.query("""
                    INSERT INTO delivery_batches (job_id, message_id, app_id, token_kind, attempts, subscription_ids,
                                                  first_subscription_id, last_subscription_id, finished_at, created_at)
                    SELECT coalesce(max(job_id), 0) + 1, \(messageID), \(appID), 'update', 1, ARRAY[\(device)], \(device), \(device),
                           to_timestamp(\(time)), to_timestamp(\(time))
                    FROM delivery_batches
                    RETURNING job_id << 20 AS id
                    """).firstRow()
            } else {
                recorded = try await database.query("""
                    INSERT INTO delivery_rows (apns_id, message_id, app_id, subscription_id, token_kind, state, error_reason,
                                               finished_at, created_at)
                    VALUES (\(UUID()), \(messageID), \(appID), \(device), 'update', \(state), \(reason),
                            to_timestamp(\(time)), to_timestamp(\(time)))
                    RETURNING id
                    """).firstRow()
            }
            if clicked {
                let id: Int64 = try recorded.decode("id")
                try await database.query("""
                    INSERT INTO delivery_clicks (message_id, subscription_id, record_id, record_created_at, clicked_at)
                    VALUES (\(messageID), \(device), \(id), to_timestamp(\(time)), to_timestamp(\(time + 30)))
                    ON CONFLICT DO NOTHING
                    """)
            }
            // Written in SQL, not by the engine: counted as the engine would have.
            try await app.recountDeliveries([messageID])
        }

        func view(_ messageID: String) async throws -> JSONObject {
            let response = await app.request(.get, "/notifications/\(messageID)", headers: .restKey(restKey),
                                             query: ["app_id": appID])
            #expect(response.status == 200)
            return try #require(response.json?.objectValue)
        }

        /// The partitions of both record tables.
        func partitions() async throws -> Set<String> {
            Set(try await app.services.database.query("""
                SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent IN ('delivery_rows'::regclass, 'delivery_batches'::regclass)
                """).map { try $0.decode("name", as: String.self) })
        }

        /// Records in the default partitions: rows, and batches' elements.
        func recordsInDefault() async throws -> Int {
            try await app.services.database.query("""
                SELECT (SELECT count(*) FROM deliveries_default)::int
                       + (SELECT coalesce(sum(cardinality(subscription_ids)), 0) FROM delivery_batches_default)::int AS n
                """).firstRow().decode("n")
        }

        func taps(_ messageID: String) async throws -> Int {
            try await app.services.database.query(
                "SELECT count(*)::int AS n FROM delivery_clicks WHERE message_id = \(messageID)").firstRow().decode("n")
        }

        func recordCount(_ messageID: String) async throws -> Int {
            try await app.services.database.query(
                "SELECT count(*)::int AS n FROM deliveries WHERE message_id = \(messageID)").firstRow().decode("n")
        }
    }

    /// Records of every kind the view counts: accepted, tapped, unreachable (failed), other
    /// errors (errored), an error with no reason, cancelled.
    func recordsOfEveryKind(_ w: World, _ messageID: String, at time: Double) async throws {
        try await w.record(messageID, "accepted", clicked: true, at: time + 1)
        try await w.record(messageID, "accepted", at: time + 2)
        try await w.record(messageID, "error", reason: "Unregistered", at: time + 3)
        try await w.record(messageID, "error", reason: "BadDeviceToken", at: time + 4)
        try await w.record(messageID, "error", reason: "TooManyRequests", at: time + 5)
        try await w.record(messageID, "error", reason: "TooManyRequests", at: time + 6)
        try await w.record(messageID, "error", at: time + 7)
        try await w.record(messageID, "cancelled", at: time + 8)
    }

    @Test func aDayPastTheRetentionIsDroppedAndTheCountsStay() async throws {
        let w = try await World.make()
        let old = w.today - 40, recent = w.today - 10
        try await w.createPartition(old)
        try await w.createPartition(recent)
        // Only in the old day: everything the view shows must come from the archive after the drop.
        let gone = try await w.message(at: old.startSeconds + 3600)
        try await recordsOfEveryKind(w, gone, at: old.startSeconds + 3600)
        // Spread over the old, the recent and today's partitions: archived and live figures add up.
        let spread = try await w.message(at: old.startSeconds + 7200)
        try await recordsOfEveryKind(w, spread, at: old.startSeconds + 7200)
        try await recordsOfEveryKind(w, spread, at: recent.startSeconds + 60)
        try await w.record(spread, "error", reason: "Unregistered", at: w.now - 60)
        // Only in the recent day: untouched.
        let kept = try await w.message(at: recent.startSeconds + 120)
        try await recordsOfEveryKind(w, kept, at: recent.startSeconds + 120)

        let before = [try await w.view(gone), try await w.view(spread), try await w.view(kept)]
        #expect(before[0]["successful"] == 3 && before[0]["failed"] == 2 && before[0]["errored"] == 2)
        #expect(before[0]["converted"] == 1 && before[0]["canceled"] == true)
        #expect(before[0]["errors_by_reason"] == ["BadDeviceToken": 1, "TooManyRequests": 2, "Unregistered": 1])
        #expect(before[0]["completed_at"] == .int(Int64(old.startSeconds) + 3608))
        #expect(before[1]["failed"] == 5)

        let outcome = try await Maintenance.runOnce(w.app.services, now: w.now)
        #expect(outcome.partitions.dropped.contains(old))
        #expect(!outcome.partitions.dropped.contains(recent))

        let partitions = try await w.partitions()
        #expect(!partitions.contains(DeliveryPartitionPlan.partitionName(old)))
        #expect(!partitions.contains("delivery_batches_" + old.yyyymmdd))
        #expect(partitions.contains(DeliveryPartitionPlan.partitionName(recent)))
        #expect(partitions.contains("delivery_batches_" + recent.yyyymmdd))
        #expect(partitions.isSuperset(of: ["deliveries_default", "delivery_batches_default"]))
        for ahead in 0...DeliveryPartitionPlan.daysAhead {
            #expect(partitions.contains(DeliveryPartitionPlan.partitionName(w.today + ahead)))
            #expect(partitions.contains("delivery_batches_" + (w.today + ahead).yyyymmdd))
        }
        // A dropped day's tap went with its record (`spread`'s device tapped its first record,
        // in the old day); the recent day's stays.
        #expect(try await w.taps(gone) == 0)
        #expect(try await w.taps(spread) == 0)
        #expect(try await w.taps(kept) == 1)
        #expect(try await w.recordCount(gone) == 0)
        #expect(try await w.recordCount(spread) == 9)
        #expect(try await w.recordCount(kept) == 9)

        let after = [try await w.view(gone), try await w.view(spread), try await w.view(kept)]
        #expect(after == before)

        // Another pass finds nothing to do and counts nothing twice.
        let again = try await Maintenance.runOnce(w.app.services, now: w.now)
        #expect(again.partitions == DeliveryPartitions.Outcome())
        #expect([try await w.view(gone), try await w.view(spread), try await w.view(kept)] == before)
    }

    /// The view's `completed_at` is the last record's finish, wherever that record now is.
    @Test func completedAtComesFromTheArchiveWhenTheLastRecordWasDropped() async throws {
        let w = try await World.make()
        let old = w.today - 35
        try await w.createPartition(old)
        let messageID = try await w.message(at: old.startSeconds + 100)
        try await w.record(messageID, "accepted", at: old.startSeconds + 500)
        let before = try await w.view(messageID)
        try await Maintenance.runOnce(w.app.services, now: w.now)
        #expect(try await w.recordCount(messageID) == 0)
        let after = try await w.view(messageID)
        #expect(after["completed_at"] == .int(Int64(old.startSeconds) + 500))
        #expect(after == before)
    }

    /// Records that landed in the default partition (their day had none) move into their day's
    /// partition; past the retention, that day is counted and dropped like any other.
    @Test func recordsStrandedInTheDefaultPartitionAreMovedOrDropped() async throws {
        let w = try await World.make()
        let old = w.today - 50, recent = w.today - 5
        let stale = try await w.message(at: old.startSeconds + 10)
        try await recordsOfEveryKind(w, stale, at: old.startSeconds + 10)
        let fresh = try await w.message(at: recent.startSeconds + 10)
        try await w.record(fresh, "error", reason: "Unregistered", at: recent.startSeconds + 20)
        #expect(try await w.recordsInDefault() == 11)
        let before = [try await w.view(stale), try await w.view(fresh)]

        let outcome = try await Maintenance.runOnce(w.app.services, now: w.now)
        #expect(outcome.partitions.created.contains(old) && outcome.partitions.created.contains(recent))
        #expect(outcome.partitions.dropped.contains(old))
        let partitions = try await w.partitions()
        #expect(partitions.contains(DeliveryPartitionPlan.partitionName(recent)))
        #expect(!partitions.contains(DeliveryPartitionPlan.partitionName(old)))
        #expect(try await w.recordsInDefault() == 0)
        let moved: Int = try await w.app.services.database.query(
            "SELECT count(*)::int AS n FROM \(identifier: DeliveryPartitionPlan.partitionName(recent))").firstRow().decode("n")
        #expect(moved == 2)
        #expect([try await w.view(stale), try await w.view(fresh)] == before)
    }

    /// Several processes run maintenance at once: each day is dropped once, counted once.
    @Test func concurrentPassesDropEachDayOnce() async throws {
        let w = try await World.make()
        let days = (41...44).map { w.today - $0 }
        var messages: [String] = []
        for day in days {
            try await w.createPartition(day)
            let messageID = try await w.message(at: day.startSeconds + 30)
            try await recordsOfEveryKind(w, messageID, at: day.startSeconds + 30)
            messages.append(messageID)
        }
        var before: [JSONObject] = []
        for messageID in messages { before.append(try await w.view(messageID)) }

        let services = w.app.services
        let outcomes = try await withThrowingTaskGroup(of: DeliveryPartitions.Outcome.self) { group in
            for _ in 0..<3 { group.addTask { try await Maintenance.runOnce(services, now: w.now).partitions } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.flatMap(\.dropped).sorted() == days.sorted())
        let partitions = try await w.partitions()
        for day in days { #expect(!partitions.contains(DeliveryPartitionPlan.partitionName(day))) }
        var after: [JSONObject] = []
        for messageID in messages { after.append(try await w.view(messageID)) }
        #expect(after == before)
    }
}
