import Foundation
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// Endpoints subscribed to event types that never occur cost the claim nothing, however many
/// events of other types their app writes: the claim looks each subscribed type up from the
/// cursor, and the cursors of endpoints with nothing pending move past what they do not take.
@Suite struct WebhookIdleEndpointsTests {
    /// Shared buffers (hit and read) the claim's statement touches, from its plan.
    static func claimBuffers(_ setup: WebhookDispatcherTests.Setup) async throws -> Int {
        let statement = WebhookDispatchStore.claimStatement(limit: 8, perApp: 2, busy: [:], leaseSeconds: 60,
                                                            token: "explain", clock: DatabaseClock())
        let rows = try await setup.app.services.database.query("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) \(statement)")
        let plan = try JSONValue.parse(try rows.firstRow().decode("QUERY PLAN", as: String.self))
        let top = try #require(plan.arrayValue?.first?.objectValue?["Plan"]?.objectValue)
        let hit = try #require(top["Shared Hit Blocks"]?.intValue)
        let read = try #require(top["Shared Read Blocks"]?.intValue)
        return Int(hit + read)
    }

    /// `count` events of a type no endpoint here takes. It is the fixture, not what is measured:
    /// written through `TestApp.seed`, without the request connections' reply deadline, which a
    /// loaded machine can push a 100,000-row insert past.
    static func appendUnwanted(_ setup: WebhookDispatcherTests.Setup, count: Int, from first: Int) async throws {
        try await setup.app.seed("""
            INSERT INTO events (id, app_id, type, data)
            SELECT 'evt_unwanted_' || g, \(setup.appID), 'delivery.accepted', '{}'
            FROM generate_series(\(first)::int, \(first + count - 1)::int) AS g
            """)
    }

    @Test func aThousandIdleEndpointsAndAHundredThousandEventsTheyDoNotTake() async throws {
        let setup = try await WebhookDispatcherTests.setup()
        let database = setup.app.services.database
        // Written directly, past the per-app limit: as many idle endpoints as a thousand-app deployment has.
        try await database.query("""
            INSERT INTO webhooks (id, app_id, url, events, secret)
            SELECT 'whk_idle_' || g, \(setup.appID), 'https://idle.example.com/hook', '{live_activity.ended}', 'whsec_idle'
            FROM generate_series(1, 1000) AS g
            """)
        let receiver = try WebhookReceiver()
        let clicks = try await WebhookDispatcherTests.webhook(setup, url: receiver.url, events: ["click"])

        try await Self.appendUnwanted(setup, count: 1000, from: 1)
        let few = try await Self.claimBuffers(setup)
        try await Self.appendUnwanted(setup, count: 99_000, from: 1001)
        let many = try await Self.claimBuffers(setup)
        // A hundred times the backlog: the same few index pages per endpoint (one more level of
        // the index at most), never the events (a thousand heap pages each).
        #expect(many <= few + 2 * 1001, "claim read \(few) buffers over 1,000 events, \(many) over 100,000")
        #expect(many < 10 * 1001, "claim read \(many) buffers for 1,001 endpoints")

        // Their cursors move past what they do not take (once every older transaction has ended).
        let newest: Int64 = try await database.query("SELECT max(seq) AS seq FROM events WHERE app_id = \(setup.appID)")
            .firstRow().decode("seq")
        let deadline = ContinuousClock.now + .seconds(120)
        var behind = 1001
        while behind > 0, ContinuousClock.now < deadline {
            _ = try await database.withConnection { try WebhookDispatchStore.skipUnwanted(clock: DatabaseClock(), in: $0) }
            behind = try await database.query("""
                SELECT count(*)::int AS n FROM webhooks WHERE app_id = \(setup.appID) AND cursor_seq <> \(newest)
                """).firstRow().decode("n")
            if behind > 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(behind == 0)
        let pending = try await WebhookDispatchStore.pendingByApp(in: database)
        #expect(pending.first { $0.app == setup.appID }?.pending == 0)

        // What an endpoint does take still arrives, alone, and no idle endpoint is attempted.
        try await database.transaction {
            try EventOutbox.append([OutboundEvent(type: .click, appID: setup.appID, data: [:])], in: $0)
        }
        let clickID: String = try await database.query("SELECT id FROM events WHERE type = 'click'").firstRow().decode("id")
        #expect(try await WebhookDispatcherTests.attempt(WebhookDispatcherTests.dispatcher(setup)) == 1)
        #expect(receiver.eventIDs == [clickID])
        #expect(receiver.received.first?.headers["OpenPush-Webhook-Id"] == clicks)
        let attempted: Int = try await database.query("""
            SELECT count(*)::int AS n FROM webhooks WHERE app_id = \(setup.appID) AND id <> \(clicks)
              AND (last_success_at IS NOT NULL OR last_failure_at IS NOT NULL)
            """).firstRow().decode("n")
        #expect(attempted == 0)
        await receiver.shutdown()
        await setup.client.shutdown()
    }
}
