import Testing
import OpenPushCore
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
}
