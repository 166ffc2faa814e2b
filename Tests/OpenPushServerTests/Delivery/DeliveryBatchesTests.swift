import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// A job's plain acceptances are written as one `delivery_batches` row (migration 0045), every
/// other record as a row of `delivery_rows`; what reads records (the `deliveries` view, the
/// deliveries route, taps) sees one record per device either way.
@Suite struct DeliveryBatchesTests {
    static func token(_ prefix: String, _ n: Int) -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", n)
    }

    static func batches(_ harness: DeliveryHarness, _ messageID: String) async throws -> [(attempts: Int, size: Int, activities: Int?)] {
        try await harness.app.services.database.query("""
            SELECT attempts, cardinality(subscription_ids) AS size, cardinality(live_activity_ids) AS activities
            FROM delivery_batches WHERE message_id = \(messageID) ORDER BY job_id
            """).map { (try $0.decode("attempts"), try $0.decode("size"), try $0.decode("activities")) }
    }

    static func rowStates(_ harness: DeliveryHarness, _ messageID: String) async throws -> [String] {
        try await harness.app.services.database.query("""
            SELECT state || coalesce(':' || error_reason, '') AS state FROM delivery_rows WHERE message_id = \(messageID) ORDER BY id
            """).map { try $0.decode("state") }
    }

    /// Every record of the message through the route, `limit` at a time, following `next_cursor`.
    static func allPages(_ harness: DeliveryHarness, _ messageID: String, limit: Int,
                         _ query: [String: String] = [:]) async throws -> [JSONObject] {
        var records: [JSONObject] = [], cursor: String?
        repeat {
            var page = query.merging(["limit": String(limit)]) { $1 }
            if let cursor { page["cursor"] = cursor }
            let response = await NotificationDeliveriesTests.deliveries(harness, messageID, page)
            let found = try NotificationDeliveriesTests.records(response)
            #expect(found.count <= limit)
            records += found
            cursor = response.json?.objectValue?["next_cursor"]?.stringValue
        } while cursor != nil && records.count < 1_000
        return records
    }

    @Test func aJobsAcceptancesAreOneBatchAndItsErrorsRows() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let accepted = (0..<6).map { Self.token("a1", $0) }, dead = "dead" + String(repeating: "0", count: 60)
        var ids: [String: String] = [:]
        for token in accepted + [dead] { ids[token] = try await harness.app.insertSubscription(appID: appID, token: token) }
        let messageID = try await NotificationDeliveriesTests.send(harness)
        try await harness.drain()

        let batches = try await Self.batches(harness, messageID)
        #expect(batches.count == 1)
        #expect(batches.first?.size == 6 && batches.first?.attempts == 1 && batches.first?.activities == nil)
        #expect(try await Self.rowStates(harness, messageID) == ["error:Unregistered"])

        // Each element reads as its own record, with the apns-id it was sent with.
        let sent = Dictionary(uniqueKeysWithValues: harness.simulator.accepted().map { ($0.deviceToken, $0.apnsID.lowercased()) })
        let records = try await Self.allPages(harness, messageID, limit: 50)
        #expect(records.count == 7)
        for token in accepted {
            let record = try #require(records.first { $0["subscription_id"]?.stringValue == ids[token] })
            #expect(record["state"] == "accepted")
            #expect(record["attempts"] == 1)
            #expect(record["apns_status"] == 200)
            #expect(record["apns_id"]?.stringValue == sent[token])
            #expect(record["live_activity_id"] == .null)
            #expect(record["clicked_at"] == .null)
        }
        let view = await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": appID])
        #expect(view.json?.objectValue?["successful"] == 6 && view.json?.objectValue?["failed"] == 1)

        // A tap on a batched device stamps that device's record only, once.
        for _ in 0..<2 {
            let tap = await harness.app.request(.post, "/v1/apps/\(appID)/notifications/\(messageID)/opened",
                                                headers: .sdkKey(harness.created.sdkKey), json: ["token": .string(accepted[3])])
            #expect(tap.status == 200)
        }
        let tapped = try await Self.allPages(harness, messageID, limit: 50)
        #expect(tapped.filter { $0["clicked_at"] != .null }.map { $0["subscription_id"]?.stringValue } == [ids[accepted[3]]])
        let after = await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                              query: ["app_id": appID])
        #expect(after.json?.objectValue?["converted"] == 1)
    }

    /// A Live Activity update's batch keeps each element's activity id, and a tap with the
    /// notification id finds the device's element.
    @Test func aLiveActivityBatchKeepsEachActivityAndTakesTaps() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let app = harness.created
        for n in 0..<3 {
            try await DeliveryGuaranteesTests.openActivity(harness, app, activityID: "game-7", token: Self.token("d0", n),
                                                           updateToken: Self.token("e0", n))
        }
        let messageID = try await DeliveryGuaranteesTests.update(harness, app, activityID: "game-7", score: 2)
        try await harness.drain()
        let batches = try await Self.batches(harness, messageID)
        #expect(batches.count == 1)
        #expect(batches.first?.size == 3 && batches.first?.activities == 3)
        let records = try await Self.allPages(harness, messageID, limit: 2)
        #expect(records.count == 3)
        #expect(records.allSatisfy { $0["live_activity_id"] != .null && $0["state"] == "accepted" && $0["token_kind"] == "update" })

        let click = await harness.app.request(.post, "/v1/apps/\(app.app.id)/live-activities/game-7/click",
                                              headers: .sdkKey(app.sdkKey),
                                              json: ["token": .string(Self.token("d0", 1)), "notification_id": .string(messageID)])
        #expect(click.status == 200, "\(click.text)")
        let clicked = try await Self.allPages(harness, messageID, limit: 10).filter { $0["clicked_at"] != .null }
        #expect(clicked.count == 1)
    }

    /// Retries make batches whose ranges of devices overlap (each attempt's jobs span the
    /// message's devices): every page size lists each record once, in (device, record) order,
    /// as the `deliveries` view holds them.
    @Test func pagesAcrossOverlappingBatchesListEveryRecordOnceInOrder() async throws {
        var settings = NotificationDeliveriesTests.slowRetries()
        settings.jobSize = 8
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let tokens = (0..<20).map { Self.token("a2", $0) } + (0..<10).map { Self.token("5000", $0) }
            + ["dead" + String(repeating: "1", count: 60)]
        for token in tokens { _ = try await harness.app.insertSubscription(appID: appID, token: token) }
        let messageID = try await NotificationDeliveriesTests.send(harness)
        try await harness.drain()
        harness.simulator.setBehaviour(.accept, forTokenPrefix: "5000")
        try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE message_id = \(messageID)")
        try await harness.drain()

        let batches = try await Self.batches(harness, messageID)
        #expect(batches.filter { $0.attempts == 1 }.map(\.size).reduce(0, +) == 20)
        #expect(batches.filter { $0.attempts == 2 }.map(\.size).reduce(0, +) == 10)
        #expect(batches.count >= 4)

        let expected = try await harness.app.services.database.query("""
            SELECT subscription_id, id FROM deliveries WHERE message_id = \(messageID) ORDER BY subscription_id, id
            """).map { try $0.decode("subscription_id", as: String.self) }
        #expect(expected.count == 31)
        for limit in [1, 3, 7, 50] {
            let listed = try await Self.allPages(harness, messageID, limit: limit)
            #expect(listed.compactMap { $0["subscription_id"]?.stringValue } == expected, "limit \(limit)")
            #expect(listed.filter { $0["attempts"] == 2 }.count == 10)
        }
        // Filtered by state: the batches hold only acceptances.
        #expect(try await Self.allPages(harness, messageID, limit: 4, ["state": "error"]).count == 1)
        #expect(try await Self.allPages(harness, messageID, limit: 4, ["state": "accepted"]).count == 30)
        // One device, wherever its batch lies.
        let device = expected[17]
        let one = try await Self.allPages(harness, messageID, limit: 5, ["subscription_id": device])
        #expect(one.compactMap { $0["subscription_id"]?.stringValue } == [device])
    }

    // MARK: upgrades

    /// A database at 0044 holds records as rows, one of them tapped: after 0045 the records,
    /// the tap and its "first" are where they were, and the next taps count as before.
    @Test func theUpgradeKeepsRecordsAndTheirTaps() async throws {
        let empty = try await TestDatabase.create().createEmptySibling()
        let before = try TestApp.make(conninfo: empty)
        try await Migrator(pool: before.services.database).apply(before.services.migrations.filter { $0.version < 45 })
        let harness = try await DeliveryHarness.make(conninfo: empty)
        defer { Task { await harness.shutdown() } }
        let app = harness.created, database = harness.app.services.database
        let tokens = (0..<3).map { Self.token("c0", $0) }
        var inserted: [String] = []
        for token in tokens { inserted.append(try await harness.app.insertSubscription(appID: app.app.id, token: token)) }
        let ids = inserted
        try await database.transaction { connection in
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, name, request, send_after, expansion, audience_total)
                VALUES ('msg_old', \(app.app.id), 'notification', 'n', '{"contents": {"en": "x"}}'::jsonb, now(), 'done', 3)
                """)
            for (n, (state, reason, clicked)) in [("accepted", nil, true), ("accepted", nil, false),
                                                   ("error", "Unregistered", false)].enumerated() {
                try connection.query("""
                    INSERT INTO deliveries (message_id, app_id, subscription_id, token_kind, state, error_reason, attempts,
                                            apns_status, finished_at, clicked_at)
                    VALUES ('msg_old', \(app.app.id), \(ids[n]), 'device', \(state), \(reason), 1,
                            \(state == "accepted" ? 200 : 410), now(), CASE WHEN \(clicked) THEN now() END)
                    """)
            }
        }
        try await Migrator(pool: database).apply(harness.app.services.migrations, functions: harness.app.services.functions)
        try await harness.app.recountDeliveries(["msg_old"])

        let records = try await Self.allPages(harness, "msg_old", limit: 2)
        #expect(records.compactMap { $0["subscription_id"]?.stringValue } == ids.sorted())
        let clicked = records.filter { $0["clicked_at"] != .null }.compactMap { $0["subscription_id"]?.stringValue }
        #expect(clicked == [ids[0]])
        let view = { await harness.app.request(.get, "/notifications/msg_old", headers: .restKey(app.restKey),
                                               query: ["app_id": app.app.id]).json?.objectValue }
        let upgraded = await view()
        #expect(upgraded?["converted"] == 1 && upgraded?["successful"] == 2 && upgraded?["failed"] == 1)
        for token in [tokens[0], tokens[1]] {
            let tap = await harness.app.request(.post, "/v1/apps/\(app.app.id)/notifications/msg_old/opened",
                                                headers: .sdkKey(app.sdkKey), json: ["token": .string(token)])
            #expect(tap.status == 200, "\(tap.text)")
        }
        // The tapped device was converted already; the other one converts now.
        let tapped = await view()
        #expect(tapped?["converted"] == 2)
    }
}
