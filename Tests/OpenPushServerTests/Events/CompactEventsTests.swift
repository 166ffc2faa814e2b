import Foundation
import HTTPClient
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// A job's delivery events stored as one row (`DeliveryEventBatch`, migration 0034): the engine
/// writes one row per job, the feed and the webhooks expand it into the same events with the
/// same ids, cursors stand inside it, the types filter and `/metrics` count its members, and an
/// upgrade keeps the events and cursors given out before it.
@Suite struct CompactEventsTests {
    /// Subscription `sub_n`'s apns-id for msg_1's device push, as the engine derives it (and the
    /// readers, from a row that does not store it).
    static func apnsID(_ n: Int, notification: String = "msg_1") -> String {
        APNSIdentifier.derive(messageID: notification, subscriptionID: "sub_\(n)", tokenKind: .device)
    }

    static func accepted(_ appID: String, _ subscriptions: Range<Int>, notification: String = "msg_1") -> OutboundEvent {
        var batch = DeliveryEventBatch(notificationID: notification, tokenKind: .device)
        for n in subscriptions { batch.append(subscriptionID: "sub_\(n)", apnsID: apnsID(n, notification: notification)) }
        return OutboundEvent(type: .deliveryAccepted, appID: appID, batch: batch)!
    }

    static func failed(_ appID: String, _ subscriptions: Range<Int>) -> OutboundEvent {
        var batch = DeliveryEventBatch(notificationID: "msg_1", tokenKind: .device, failures: ([], []))
        for n in subscriptions { batch.append(subscriptionID: "sub_\(n)", apnsID: apnsID(n), failure: ("BadDeviceToken", 400)) }
        return OutboundEvent(type: .deliveryFailed, appID: appID, batch: batch)!
    }

    static func rowIDs(_ app: TestApp, _ appID: String) async throws -> [String] {
        try await app.services.database.query("SELECT id FROM events WHERE app_id = \(appID) ORDER BY seq").map { try $0.decode("id") }
    }

    static func ids(_ events: [JSONObject]) -> [String] { events.compactMap { $0["id"]?.stringValue } }

    @Test func theFeedExpandsARowAndPagesThroughItsMiddle() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        let appID = created.app.id
        try await EventFeedTests.append(app, [EventFeedTests.click(appID, 0), Self.accepted(appID, 0..<5),
                                              EventFeedTests.click(appID, 1), Self.failed(appID, 5..<7),
                                              Self.accepted(other.app.id, 0..<3)])
        let rows = try await Self.rowIDs(app, appID)
        #expect(rows.count == 4)

        let all = try await EventFeedTests.feed(app, created, count: 9).events
        #expect(all.map { $0["type"]?.stringValue ?? "" } == ["click"] + Array(repeating: "delivery.accepted", count: 5)
            + ["click", "delivery.failed", "delivery.failed"])
        let expectedIDs = [rows[0]] + (0..<5).map { "\(rows[1])_\($0)" } + [rows[2], "\(rows[3])_0", "\(rows[3])_1"]
        #expect(Self.ids(all) == expectedIDs)
        #expect(Set(all[1].keys) == ["id", "type", "created_at", "app_id", "data"])
        #expect(all[1]["app_id"] == .string(appID))
        #expect(all[3]["data"] == .object(EventData.delivery(notificationID: "msg_1", subscriptionID: "sub_2",
                                                             tokenKind: .device, apnsID: Self.apnsID(2))))
        #expect(all[8]["data"] == .object(EventData.delivery(notificationID: "msg_1", subscriptionID: "sub_6", tokenKind: .device,
                                                             apnsID: Self.apnsID(6), failure: ("BadDeviceToken", 400))))

        // Pages of 2 stop inside the row; their cursors carry the index, the row's last member's does not.
        var paged: [String] = []
        var cursors: [String] = []
        var after: String? = nil
        for _ in 0..<6 {
            var query = ["limit": "2"]
            if let after { query["after"] = after }
            let page = try await EventFeedTests.feed(app, created, query)
            paged += Self.ids(page.events)
            cursors.append(page.next)
            after = page.next
        }
        #expect(paged == expectedIDs)
        #expect(cursors.map(\.count) == [33, 33, 22, 33, 22, 22])
        #expect(EventPosition(cursor: cursors[0])?.index == 0)

        // Types: only the failed row's members, and a cursor in its middle resumes there.
        let failed = try await EventFeedTests.feed(app, created, ["types": "delivery.failed", "limit": "1"])
        #expect(Self.ids(failed.events) == ["\(rows[3])_0"])
        let rest = try await EventFeedTests.feed(app, created, ["types": "delivery.failed", "after": failed.next])
        #expect(Self.ids(rest.events) == ["\(rows[3])_1"])
        // A cursor inside a row of another type passes the rest of that row.
        let clicks = try await EventFeedTests.feed(app, created, ["types": "click", "after": cursors[1]])
        #expect(Self.ids(clicks.events) == [rows[2]])

        // The other app sees its own row only; this app's cursor changes nothing for it.
        let theirs = try await EventFeedTests.feed(app, other, ["after": cursors[0]], count: 0)
        #expect(theirs.events.allSatisfy { $0["app_id"] == .string(other.app.id) })
        let response = await app.request(.get, "/apps/\(appID)/events", headers: .restKey(other.restKey))
        // Another app's key on this app's feed: 401, as on every REST route.
        #expect(response.status == 401, "\(response.text)")
        #expect(response.json?.objectValue?["errors"] != nil)
    }

    @Test func webhooksSendARowInBatchesWithTheFeedsIDsAndResumeInsideIt() async throws {
        let setup = try await WebhookDispatcherTests.setup()
        let receiver = try WebhookReceiver()
        let id = try await WebhookDispatcherTests.webhook(setup, url: receiver.url, events: ["delivery.accepted"])
        try await EventFeedTests.append(setup.app, [Self.accepted(setup.appID, 0..<250), EventFeedTests.click(setup.appID, 0)])
        try await Maintenance.refreshMetrics(setup.app.services)
        let metricsBefore = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        #expect(metricsBefore.contains("openpush_webhook_events_pending{app=\"\(setup.appID)\"} 250"))

        let dispatcher = WebhookDispatcherTests.dispatcher(setup)
        #expect(try await WebhookDispatcherTests.attempt(dispatcher) == 1)
        #expect(receiver.received.map(\.eventIDs.count) == [100, 100, 50], "\(setup.app.logs.all)")
        let feed = try await EventFeed.page(appID: setup.appID, request: EventFeedRequest(types: ["delivery.accepted"], limit: 1000),
                                            now: setup.app.services.now(), in: setup.app.services.database)
        #expect(feed.count == 250)
        #expect(receiver.eventIDs == feed.map(\.id))
        for post in receiver.received { try WebhookDispatcherTests.verify(post, secrets: ["whsec_test_secret"]) }
        let first = try #require(try JSONValue.parse(receiver.received[0].body).objectValue?["events"]?.arrayValue?[7].objectValue)
        #expect(first["data"] == .object(EventData.delivery(notificationID: "msg_1", subscriptionID: "sub_7",
                                                            tokenKind: .device, apnsID: Self.apnsID(7))))
        let done = try await setup.app.services.database.query("""
            SELECT cursor_index FROM webhooks WHERE id = \(id)
            """).firstRow().decode("cursor_index", as: Int64.self)
        #expect(done == EventPosition.wholeRow)
        try await Maintenance.refreshMetrics(setup.app.services)
        let metricsAfter = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        #expect(metricsAfter.contains("openpush_webhook_events_pending{app=\"\(setup.appID)\"} 0"))

        // A cursor left inside the row (as a batch that failed after the first would leave it)
        // resumes with the member after its index: pending counts only those.
        try await setup.app.services.database.query("UPDATE webhooks SET cursor_index = 149 WHERE id = \(id)")
        try await Maintenance.refreshMetrics(setup.app.services)
        let metricsMid = String(decoding: await setup.app.request(.get, "/metrics").body, as: UTF8.self)
        #expect(metricsMid.contains("openpush_webhook_events_pending{app=\"\(setup.appID)\"} 100"))
        #expect(try await WebhookDispatcherTests.attempt(dispatcher) == 1)
        #expect(receiver.received.count == 4)
        #expect(receiver.received.last?.eventIDs == Array(feed.map(\.id)[150...]))
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func aFailedBatchLeavesTheCursorInsideTheRow() async throws {
        let setup = try await WebhookDispatcherTests.setup()
        let receiver = try WebhookReceiver()
        let id = try await WebhookDispatcherTests.webhook(setup, url: receiver.url)
        try await EventFeedTests.append(setup.app, [Self.accepted(setup.appID, 0..<150)])
        let dispatcher = WebhookDispatcherTests.dispatcher(setup)
        // The first batch goes through; then the receiver starts failing.
        let flip = Task {
            _ = await receiver.wait { $0.count >= 1 }
            receiver.answer(status: 500)
        }
        receiver.answer(status: 200, after: .milliseconds(300))
        #expect(try await WebhookDispatcherTests.attempt(dispatcher) == 1)
        await flip.value
        let row = try await setup.app.services.database.query("""
            SELECT cursor_index, failed_attempts, (SELECT id FROM events WHERE seq = cursor_seq) AS row_id FROM webhooks WHERE id = \(id)
            """).firstRow()
        let rowID: String = try row.decode("row_id")
        #expect(receiver.received.map(\.eventIDs.count) == [100, 50])
        #expect(receiver.received[0].eventIDs == (0..<100).map { "\(rowID)_\($0)" })
        #expect(try row.decode("cursor_index", as: Int64.self) == 99)
        #expect(try row.decode("failed_attempts", as: Int.self) == 1)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    /// Counts the UPDATEs of `webhooks` rows (claims, cursor writes, releases) in the test's database.
    static func countWebhookUpdates(_ setup: WebhookDispatcherTests.Setup) async throws {
        try await setup.app.services.database.transaction { connection in
            try connection.execute(script: """
                CREATE TABLE webhook_updates (id text);
                CREATE FUNCTION count_webhook_update() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO webhook_updates VALUES (NEW.id); RETURN NEW; END $$;
                CREATE TRIGGER count_webhook_updates AFTER UPDATE ON webhooks FOR EACH ROW EXECUTE FUNCTION count_webhook_update();
                """)
        }
    }

    static func webhookUpdates(_ setup: WebhookDispatcherTests.Setup) async throws -> Int {
        try await setup.app.services.database.query("SELECT count(*)::int8 AS n FROM webhook_updates").firstRow().decode("n", as: Int.self)
    }

    @Test func aLeaseWritesTheCursorOnceForAllItsBatchesAndTheRowIsLZ4() async throws {
        let setup = try await WebhookDispatcherTests.setup()
        let receiver = try WebhookReceiver()
        let id = try await WebhookDispatcherTests.webhook(setup, url: receiver.url, events: ["delivery.accepted"])
        try await Self.countWebhookUpdates(setup)
        try await EventFeedTests.append(setup.app, [Self.accepted(setup.appID, 0..<1000)])
        let dispatcher = WebhookDispatcherTests.dispatcher(setup)
        #expect(try await WebhookDispatcherTests.attempt(dispatcher) == 1)
        #expect(receiver.received.map(\.eventIDs.count) == Array(repeating: 100, count: 10), "\(setup.app.logs.all)")
        #expect(Set(receiver.eventIDs).count == 1000)
        // The claim, then one write of the cursor past the whole row (not one per batch).
        #expect(try await Self.webhookUpdates(setup) == 2)
        let row = try await setup.app.services.database.query("""
            SELECT w.cursor_index, w.lease_token, w.last_success_at IS NOT NULL AS succeeded, w.cursor_seq = e.seq AS at_row,
                   pg_column_compression(e.data) AS compression,
                   (SELECT attcompression::text FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'data') AS column_compression
            FROM webhooks AS w, events AS e WHERE w.id = \(id) AND e.app_id = w.app_id
            """).firstRow()
        #expect(try row.decode("cursor_index", as: Int64.self) == EventPosition.wholeRow)
        #expect(try row.decode("lease_token", as: String?.self) == nil)
        #expect(try row.decode("succeeded", as: Bool.self))
        #expect(try row.decode("at_row", as: Bool.self))
        // Migration 0037: the row's tens of kilobytes are compressed with lz4, not pglz.
        #expect(try row.decode("column_compression", as: String.self) == "l")
        #expect(try row.decode("compression", as: String?.self) == "lz4")
        #expect(try await dispatcher.runOnce() == 0)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    /// The cursor is written when a lease ends, so a process that dies mid-lease (here: whose
    /// lease another process took over before its write) leaves the cursor where the lease
    /// found it: the next lease sends those events again (at most one lease's read, 2,000), and
    /// none is skipped.
    @Test func aLeaseLostBeforeItsWriteResendsItsEventsAndSkipsNone() async throws {
        let setup = try await WebhookDispatcherTests.setup()
        let receiver = try WebhookReceiver()
        let id = try await WebhookDispatcherTests.webhook(setup, url: receiver.url, events: ["delivery.accepted"])
        try await EventFeedTests.append(setup.app, [Self.accepted(setup.appID, 0..<500)])
        let cursor = try await setup.app.services.database.query("""
            SELECT cursor_seq, cursor_index FROM webhooks WHERE id = \(id)
            """).firstRow()
        receiver.answer(status: 200, after: .milliseconds(150))
        let first = WebhookDispatcherTests.dispatcher(setup)
        let attempt = Task { try await WebhookDispatcherTests.attempt(first) }
        #expect(await receiver.wait { $0.count >= 2 })
        try await setup.app.services.database.query("UPDATE webhooks SET lease_token = 'taken_over' WHERE id = \(id)")
        #expect(try await attempt.value == 1)
        #expect(receiver.received.count == 5)
        let after = try await setup.app.services.database.query("""
            SELECT cursor_seq, cursor_index FROM webhooks WHERE id = \(id)
            """).firstRow()
        #expect(try after.decode("cursor_seq", as: Int64.self) == (try cursor.decode("cursor_seq", as: Int64.self)))
        #expect(try after.decode("cursor_index", as: Int64.self) == (try cursor.decode("cursor_index", as: Int64.self)))

        // The other process's lease ends without a write too; the next lease resends the row.
        try await setup.app.services.database.query("UPDATE webhooks SET lease_token = NULL, lease_until = NULL WHERE id = \(id)")
        receiver.answer(status: 200)
        #expect(try await WebhookDispatcherTests.attempt(WebhookDispatcherTests.dispatcher(setup)) == 1)
        let ids = receiver.eventIDs
        #expect(ids.count == 1000)
        #expect(Array(ids[500...]) == Array(ids[..<500]))
        #expect(Set(ids).count == 500)
        let done = try await setup.app.services.database.query("SELECT cursor_index FROM webhooks WHERE id = \(id)").firstRow()
        #expect(try done.decode("cursor_index", as: Int64.self) == EventPosition.wholeRow)
        await receiver.shutdown()
        await setup.client.shutdown()
    }

    @Test func aJobWritesOneRowThatExpandsIntoEachDelivery() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await EventProducersTests.subscribe(harness, ["delivery.accepted"])
        var subscriptions: [String] = []
        for n in 0..<3 {
            subscriptions.append(try await harness.app.insertSubscription(appID: appID, token: String(format: "c%03d", n)
                + String(repeating: "c1", count: 30)))
        }
        let messageID = try await EventProducersTests.send(harness)
        try await harness.drain()
        let rows = try await harness.app.services.database.query("""
            SELECT id, batch_size FROM events WHERE app_id = \(appID) AND type = 'delivery.accepted'
            """)
        #expect(rows.count == 1)
        #expect(try rows.firstRow().decode("batch_size", as: Int?.self) == 3)
        let rowID: String = try rows.firstRow().decode("id")
        let feed = try await EventFeedTests.feed(harness.app, harness.created, ["types": "delivery.accepted"], count: 3).events
        #expect(Self.ids(feed) == (0..<3).map { "\(rowID)_\($0)" })
        #expect(Set(feed.compactMap { $0["data"]?.objectValue?["subscription_id"]?.stringValue }) == Set(subscriptions))
        #expect(feed.allSatisfy { $0["data"]?.objectValue?["notification_id"] == .string(messageID) })
        let apnsIDs = try await harness.app.services.database.query("""
            SELECT subscription_id, \(DeliveryRecord.storedAPNSID)::text AS id FROM deliveries WHERE message_id = \(messageID)
            """).map { (try $0.decode("subscription_id", as: String.self), try $0.decode("id", as: String.self)) }
        for (subscription, apnsID) in apnsIDs {
            #expect(feed.contains { $0["data"]?.objectValue == EventData.delivery(notificationID: messageID, subscriptionID: subscription,
                                                                                     tokenKind: .device, apnsID: apnsID) })
        }
    }

    /// A database at 0033 holds events and an endpoint cursor written the old way; after 0034
    /// the feed answers a cursor handed out before with the events after it (same ids), the
    /// endpoint sends what followed its cursor, and compact rows follow.
    @Test func theUpgradeKeepsEventsIDsAndCursors() async throws {
        let empty = try await TestDatabase.create().createEmptySibling()
        let app = try TestApp.make(conninfo: empty)
        let migrations = app.services.migrations
        try await Migrator(pool: app.services.database).apply(migrations.filter { $0.version < 34 })
        let created = try await app.createApp()
        let appID = created.app.id
        let receiver = try WebhookReceiver()
        try await app.services.database.transaction { connection in
            for n in 0..<3 {
                try connection.query("""
                    INSERT INTO events (id, app_id, type, data) VALUES (\("evt_old\(n)"), \(appID), 'click', \("{\"n\": \(n)}")::jsonb)
                    """)
            }
            try connection.query("""
                INSERT INTO webhooks (id, app_id, url, events, secret, cursor_xid, cursor_seq)
                SELECT 'whk_old', \(appID), \(receiver.url), '{*}', 'whsec_old', xid, seq FROM events WHERE id = 'evt_old0'
                """)
        }
        let old = try await app.services.database.query("""
            SELECT xid::text::int8 AS xid, seq FROM events WHERE id = 'evt_old0'
            """).firstRow()
        // The 22-character cursor the feed handed out for evt_old0 before the upgrade.
        let cursor = DeliveryCursor.encode(try old.decode("xid")) + DeliveryCursor.encode(try old.decode("seq"))

        try await Migrator(pool: app.services.database).apply(migrations, functions: app.services.functions)
        try await EventFeedTests.append(app, [Self.accepted(appID, 0..<2)])
        let page = try await EventFeedTests.feed(app, created, ["after": cursor], count: 4)
        #expect(Array(Self.ids(page.events).prefix(2)) == ["evt_old1", "evt_old2"])
        #expect(page.events.count == 4)
        #expect(page.events.last?["type"] == "delivery.accepted")

        let client = try HTTPClient()
        var settings = WebhookDispatcher.Settings()
        settings.allowPrivate = true
        let dispatcher = WebhookDispatcher(services: app.services, client: client, settings: settings,
                                           logger: Logger(label: "test", level: .debug, handler: app.logs))
        let deadline = ContinuousClock.now + .seconds(120)
        while receiver.eventIDs.count < 4, ContinuousClock.now < deadline {
            _ = try await dispatcher.runOnce()
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(receiver.eventIDs == Self.ids(page.events))
        await receiver.shutdown()
        await client.shutdown()
    }
}
