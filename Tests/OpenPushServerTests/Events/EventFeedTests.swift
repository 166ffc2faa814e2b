import Foundation
import HTTPClient
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `GET /apps/{app_id}/events`: order, filter, cursor paging, the 7-day cut, pings and other
/// apps left out, and a late commit never skipped.
@Suite struct EventFeedTests {
    static func append(_ app: TestApp, _ events: [OutboundEvent]) async throws {
        try await app.services.database.transaction { try EventOutbox.append(events, in: $0) }
    }

    /// A page of the feed. An event shows once every transaction older than it in the whole
    /// cluster has ended, and other suites' transactions run on the same cluster: with
    /// `count`, the page is read again (for up to 120 s) until it holds that many.
    static func feed(_ app: TestApp, _ created: CreatedApp, _ query: [String: String] = [:],
                     count: Int? = nil) async throws -> (events: [JSONObject], next: String) {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let response = await app.request(.get, "/apps/\(created.app.id)/events", headers: .restKey(created.restKey), query: query)
            #expect(response.status == 200, "\(response.text)")
            let body = try #require(response.json?.objectValue)
            let events = try #require(body["events"]?.arrayValue).compactMap(\.objectValue)
            if let count, events.count < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                continue
            }
            return (events, try #require(body["next_cursor"]?.stringValue))
        }
    }

    static func click(_ appID: String, _ n: Int) -> OutboundEvent {
        OutboundEvent(type: .click, appID: appID, data: ["n": .int(Int64(n))])
    }

    @Test func eventsComeInOrderWithTheirShapeAndPageByCursor() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other"))
        try await Self.append(app, (0..<5).map { Self.click(created.app.id, $0) } + [Self.click(other.app.id, 99)])
        try await Self.append(app, [OutboundEvent(type: .ping, appID: created.app.id, data: [:], webhookID: "whk_x")])

        let all = try await Self.feed(app, created, count: 5)
        #expect(all.events.map { $0["data"]?.objectValue?["n"] } == (0..<5).map { .int(Int64($0)) })
        let first = all.events[0]
        #expect(Set(first.keys) == ["id", "type", "created_at", "app_id", "data"])
        #expect(first["type"] == "click")
        #expect(first["app_id"] == .string(created.app.id))
        #expect(first["id"]?.stringValue?.hasPrefix("evt_") == true)
        #expect(first["created_at"]?.stringValue?.contains(".") == true)

        let page1 = try await Self.feed(app, created, ["limit": "2"], count: 2)
        #expect(page1.events.map { $0["data"]?.objectValue?["n"] } == [0, 1])
        let page2 = try await Self.feed(app, created, ["limit": "2", "after": page1.next])
        #expect(page2.events.map { $0["data"]?.objectValue?["n"] } == [2, 3])
        let page3 = try await Self.feed(app, created, ["limit": "2", "after": page2.next])
        #expect(page3.events.map { $0["data"]?.objectValue?["n"] } == [4])
        // Nothing more: the cursor stays where it was, so a poller calls again with it.
        let page4 = try await Self.feed(app, created, ["limit": "2", "after": page3.next])
        #expect(page4.events.isEmpty)
        #expect(page4.next == page3.next)
        try await Self.append(app, [Self.click(created.app.id, 5)])
        #expect(try await Self.feed(app, created, ["after": page4.next], count: 1).events.map { $0["data"]?.objectValue?["n"] } == [5])

        // The other app sees only its own.
        #expect(try await Self.feed(app, other, count: 1).events.map { $0["data"]?.objectValue?["n"] } == [99])
    }

    @Test func typesFilterAndTheSevenDayCut() async throws {
        let clock = ManualClock(1_800_000_000)
        let app = try await TestApp.make(now: clock.source)
        let created = try await app.createApp()
        let appID = created.app.id
        try await Self.append(app, [Self.click(appID, 0),
                                    OutboundEvent(type: .tokenInvalidated, appID: appID, data: ["n": 1]),
                                    OutboundEvent(type: .liveActivityEnded, appID: appID, data: ["n": 2])])
        try await app.services.database.query("UPDATE events SET created_at = to_timestamp(\(clock.now()))")
        let filtered = try await Self.feed(app, created, ["types": "token.invalidated,live_activity.ended"], count: 2)
        #expect(filtered.events.map { $0["type"] } == ["token.invalidated", "live_activity.ended"])

        // The first is 7 days and a second old: out of the feed, and pruned by maintenance.
        try await app.services.database.query("""
            UPDATE events SET created_at = to_timestamp(\(clock.now() - 7 * 86_400 - 1)) WHERE data->>'n' = '0'
            """)
        #expect(try await Self.feed(app, created, count: 2).events.map { $0["data"]?.objectValue?["n"] } == [1, 2])
        try await Maintenance.runOnce(app.services, now: clock.now())
        #expect(try await app.services.database.query("SELECT count(*)::int AS n FROM events").firstRow().decode("n", as: Int.self) == 2)
        #expect(try await EventFeed.prune(now: clock.now() + 8 * 86_400, batchSize: 1, in: app.services.database) == 2)
    }

    @Test func anEventCommittingLateWithALowerSeqIsNotSkipped() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let appID = created.app.id
        let slow = PostgresPool(conninfo: app.conninfo, size: 1)
        let release = AsyncStream<Void>.makeStream()
        let appended = AsyncStream<Void>.makeStream()
        // A transaction takes a lower seq and commits only after a later one has.
        let late = Task {
            try await slow.withConnection { connection in
                try connection.query("BEGIN")
                try EventOutbox.append([Self.click(appID, 0)], in: connection)
                appended.continuation.yield()
                // Blocks this connection's thread until the test lets go.
                let semaphore = DispatchSemaphore(value: 0)
                Task { for await _ in release.stream { break }; semaphore.signal() }
                semaphore.wait()
                try connection.query("COMMIT")
            }
        }
        for await _ in appended.stream { break }
        try await Self.append(app, [Self.click(appID, 1)])
        // Neither shows while the earlier transaction runs: a cursor past 1 would skip 0.
        let during = try await Self.feed(app, created)
        #expect(during.events.isEmpty)
        release.continuation.yield()
        try await late.value
        await slow.close()
        let after = try await Self.feed(app, created, ["after": during.next], count: 2)
        #expect(after.events.map { $0["data"]?.objectValue?["n"] } == [0, 1])
    }

    /// A transaction left open in another database of the cluster (an operator's session, another
    /// service, another suite's test) cannot write this database's events, so it holds nothing
    /// back: the feed and the dispatcher see an event that committed after it began.
    @Test func aTransactionOpenInAnotherDatabaseDoesNotHoldEventsBack() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let elsewhere = try await TestDatabase.create()
        // A connection of the test's own: BEGIN, an xid, and it stays open until the end of the test.
        let open = try PostgresConnection.connect(elsewhere.conninfo)
        try open.query("BEGIN")
        let heldXID: Int64 = try open.query("SELECT pg_current_xact_id()::text::int8 AS x").firstRow().decode("x")
        try await Self.append(app, [Self.click(created.app.id, 0)])
        let eventXID: Int64 = try await app.services.database.query("SELECT xid::text::int8 AS x FROM events").firstRow().decode("x")
        #expect(heldXID < eventXID, "the open transaction is older than the event")

        let page = try await Self.feed(app, created, count: 1)
        #expect(page.events.map { $0["data"]?.objectValue?["n"] } == [0])
        let receiver = try WebhookReceiver()
        let client = try HTTPClient()
        try await app.services.database.query("""
            INSERT INTO webhooks (id, app_id, url, events, secret) VALUES ('whk_elsewhere', \(created.app.id), \(receiver.url), '{*}', 'whsec_x')
            """)
        var settings = WebhookDispatcher.Settings()
        settings.allowPrivate = true
        let dispatcher = WebhookDispatcher(services: app.services, client: client, settings: settings,
                                           logger: Logger(label: "test", level: .debug, handler: app.logs))
        #expect(try await WebhookDispatcherTests.attempt(dispatcher) == 1)
        #expect(receiver.eventIDs.count == 1)
        // Still open all along.
        #expect(try open.query("SELECT pg_current_xact_id()::text::int8 AS x").firstRow().decode("x", as: Int64.self) == heldXID)
        try open.query("ROLLBACK")
        await receiver.shutdown()
        await client.shutdown()
    }

    /// An open transaction of this database that has written no event may still write one under
    /// its older xid, so it holds the feed back until it ends; then its event comes first.
    @Test func aTransactionOpenInThisDatabaseHoldsEventsBackUntilItEnds() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let open = try PostgresConnection.connect(app.conninfo)
        try open.query("BEGIN")
        try open.query("SELECT pg_current_xact_id()")
        try await Self.append(app, [Self.click(created.app.id, 1)])
        try await Task.sleep(for: .milliseconds(300))
        let during = try await Self.feed(app, created)
        #expect(during.events.isEmpty)
        // It writes an event after all, and commits.
        try EventOutbox.append([Self.click(created.app.id, 0)], in: open)
        try open.query("COMMIT")
        let after = try await Self.feed(app, created, ["after": during.next], count: 2)
        #expect(after.events.map { $0["data"]?.objectValue?["n"] } == [0, 1])
    }

    @Test func badParametersAre400s() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        for query in [["after": "x"], ["types": "nope"], ["limit": "0"], ["limit": "1001"], ["types": "ping"]] {
            let response = await app.request(.get, "/apps/\(created.app.id)/events", headers: .restKey(created.restKey), query: query)
            #expect(response.status == 400, "\(query)")
            #expect(response.json?.objectValue?["errors"]?.arrayValue?.count == 1)
        }
    }

    /// The case a cursor by `seq` alone gets wrong: B's transaction began after A's but appends
    /// first (the lower seq); A appends and commits while B is still open. The feed shows A's
    /// event, and B's once it commits, after the cursor that passed A's.
    @Test func anEventOfALaterTransactionWithALowerSeqIsNotSkipped() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let appID = created.app.id
        let first = PostgresPool(conninfo: app.conninfo, size: 1)
        let second = PostgresPool(conninfo: app.conninfo, size: 1)
        let bAppended = DispatchSemaphore(value: 0)
        let releaseB = DispatchSemaphore(value: 0)
        let aHasXID = AsyncStream<Void>.makeStream()
        // These block their connections' threads, as a transaction does: the pools are the test's own.
        let a = Task {
            try await first.withConnection { connection in
                try connection.query("BEGIN")
                try connection.query("SELECT pg_current_xact_id()")
                aHasXID.continuation.yield()
                bAppended.wait()
                try EventOutbox.append([Self.click(appID, 1)], in: connection)
                try connection.query("COMMIT")
            }
        }
        for await _ in aHasXID.stream { break }
        let b = Task {
            try await second.withConnection { connection in
                try connection.query("BEGIN")
                try connection.query("SELECT pg_current_xact_id()")
                try EventOutbox.append([Self.click(appID, 0)], in: connection)
                bAppended.signal()
                releaseB.wait()
                try connection.query("COMMIT")
            }
        }
        try await a.value
        let during = try await Self.feed(app, created, count: 1)
        #expect(during.events.map { $0["data"]?.objectValue?["n"] } == [1])
        releaseB.signal()
        try await b.value
        await first.close()
        await second.close()
        let after = try await Self.feed(app, created, ["after": during.next], count: 1)
        #expect(after.events.map { $0["data"]?.objectValue?["n"] } == [0])
    }
}
