import Foundation
import Testing
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Claims: exclusive, leased, oldest first, and able to start past the front of the queue.
@Suite struct DeliveryQueueTests {
    /// Three due rows, due at `base`, `base + 10`, `base + 20`.
    static func queue(_ app: TestApp, base: Double) async throws {
        let appID = try await app.createApp().app.id
        try await app.insertSubscription(appID: appID, token: "aa01")
        try await app.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, request) VALUES ('msg_q', \(appID), 'notification', '{}')
                """)
            try connection.query("""
                INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, token_kind, token, next_attempt_at)
                SELECT gen_random_uuid(), 'msg_q', \(appID), s.id, 'device', 'aa01', to_timestamp(\(base)::float8 + 10 * i)
                FROM subscriptions s, generate_series(0, 2) AS i WHERE s.app_id = \(appID)
                """)
        }
    }

    @Test func claimsOldestFirstAndNeverTwice() async throws {
        let app = try await TestApp.make()
        let base = 1_800_000_000.0
        try await Self.queue(app, base: base)
        let now = base + 100
        let first = try await app.services.database.withConnection {
            try DeliveryQueue.claim(limit: 2, worker: "a", now: now, in: $0)
        }
        #expect(first.map(\.nextAttemptAt) == [base, base + 10])
        let second = try await app.services.database.withConnection {
            try DeliveryQueue.claim(limit: 5, worker: "b", now: now, in: $0)
        }
        #expect(second.map(\.nextAttemptAt) == [base + 20])
        // Once the leases run out, the rows come back.
        let later = try await app.services.database.withConnection {
            try DeliveryQueue.claim(limit: 5, worker: "c", now: now + DeliveryQueue.defaultLeaseSeconds + 1, in: $0)
        }
        #expect(later.count == 3)
    }

    @Test func aClaimCanStartPastTheFrontOfTheQueue() async throws {
        let app = try await TestApp.make()
        let base = 1_800_000_000.0
        try await Self.queue(app, base: base)
        let skipping = try await app.services.database.withConnection {
            try DeliveryQueue.claim(limit: 5, worker: "a", now: base + 100, dueFrom: base + 10, in: $0)
        }
        #expect(skipping.map(\.nextAttemptAt) == [base + 10, base + 20])
        let everything = try await app.services.database.withConnection {
            try DeliveryQueue.claim(limit: 5, worker: "b", now: base + 100, in: $0)
        }
        #expect(everything.map(\.nextAttemptAt) == [base])
    }
}
