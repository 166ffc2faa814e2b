import Testing
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The outbox appends events in order, each with its own `evt_` id, in the caller's transaction.
@Suite struct EventOutboxTests {
    @Test func eventsAreAppendedInOrderWithTheirOwnIDsAndRollBackWithTheirTransaction() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        try await app.services.database.transaction { connection in
            try EventOutbox.append([
                OutboundEvent(type: .deliveryAccepted, appID: appID, data: ["notification_id": "m1", "subscription_id": "s1"]),
                OutboundEvent(type: .ping, appID: appID, data: [:], webhookID: "whk_1"),
            ], in: connection)
        }
        struct Rollback: Error {}
        await #expect(throws: Rollback.self) {
            try await app.services.database.transaction { connection in
                try EventOutbox.append([OutboundEvent(type: .click, appID: appID, data: [:])], in: connection)
                throw Rollback()
            }
        }
        let rows = try await app.services.database.query("""
            SELECT id, type, data::text AS data, webhook_id FROM events WHERE app_id = \(appID) ORDER BY seq
            """)
        #expect(try rows.map { try $0.decode("type", as: String.self) } == ["delivery.accepted", "ping"])
        let ids = try rows.map { try $0.decode("id", as: String.self) }
        #expect(ids.allSatisfy { $0.hasPrefix("evt_") && $0.count == 36 }, "\(ids)")
        #expect(Set(ids).count == 2)
        let data = try JSONValue.parse(try rows.firstRow().decode("data", as: String.self))
        #expect(data == ["notification_id": "m1", "subscription_id": "s1"])
        #expect(try rows.map { try $0.decode("webhook_id", as: String?.self) } == [nil, "whk_1"])
    }

    /// More events than one statement takes keep their order across statements, batch sizes and
    /// data included.
    @Test func manyEventsSpanStatementsInOrder() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let count = EventOutbox.rowsPerStatement * 2 + 7
        let events = (0..<count).map { index in
            var event = OutboundEvent(type: index % 2 == 0 ? .deliveryAccepted : .click, appID: appID,
                                      data: ["n": .int(Int64(index)), "quote": "\"{a,b}\\"])
            event.batchSize = index % 3 == 0 ? 2 : nil
            return event
        }
        try await app.services.database.transaction { try EventOutbox.append(events, in: $0) }
        let rows = try await app.services.database.query("""
            SELECT type, (data->>'n')::int8 AS n, data->>'quote' AS quote, batch_size FROM events
            WHERE app_id = \(appID) ORDER BY seq
            """)
        #expect(try rows.map { try $0.decode("n", as: Int64.self) } == (0..<Int64(count)).map { $0 })
        #expect(try rows.map { try $0.decode("type", as: String.self) } == events.map(\.type.rawValue))
        #expect(try rows.map { try $0.decode("batch_size", as: Int32?.self).map(Int.init) } == events.map(\.batchSize))
        #expect(try rows.allSatisfy { try $0.decode("quote", as: String.self) == "\"{a,b}\\" })
    }
}

extension EventOutboxTests {
    /// A job's completion appends one to a few rows: those statements are prepared once per
    /// session; a longer append runs unnamed, so a session keeps a handful of them.
    @Test func shortAppendsArePreparedAndLongOnesAreNot() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let connection = try PostgresConnection.connect(app.services.databaseConninfo)
        func events(_ count: Int) -> [OutboundEvent] {
            (0..<count).map { OutboundEvent(type: .click, appID: appID, data: ["n": .int(Int64($0))]) }
        }
        for count in [1, 1, 2, EventOutbox.preparedRowCounts + 1, 1] {
            try connection.begin()
            try EventOutbox.append(events(count), in: connection)
            try connection.query("COMMIT")
        }
        let prepared = try connection.query("SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%INSERT INTO events%'")
        #expect(prepared.count == 2)
        let appended = try await app.services.database.query("SELECT count(*)::int AS n FROM events WHERE app_id = \(appID)")
        #expect(try appended.firstRow().decode("n", as: Int.self) == 1 + 1 + 2 + EventOutbox.preparedRowCounts + 1 + 1)
    }
}
