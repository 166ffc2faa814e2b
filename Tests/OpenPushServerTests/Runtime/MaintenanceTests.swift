import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

@Suite struct MaintenanceTests {
    @Test func prunesExpiredIdempotencyKeysAndOldRateLimitRows() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let now = 1_800_000_000.0
        try await app.services.database.transaction { connection in
            for (key, age) in [("old", 31.0 * 86400), ("fresh", 29.0 * 86400)] {
                try IdempotencyStore.save(appID: appID, scope: IdempotencyStore.liveActivityStart, caller: "", key: key,
                                          response: IdempotentResponse(status: 201, body: [:], messageID: nil),
                                          now: now - age, in: connection)
            }
            try IdempotencyStore.save(appID: appID, scope: "notifications", caller: "", key: "day-old",
                                      response: IdempotentResponse(status: 200, body: [:], messageID: nil),
                                      now: now - 25 * 3600, in: connection)
            // A notification body's idempotency_key lives 30 days, unlike the header's 24 hours.
            for (key, age) in [("body-old", 31.0 * 86400), ("body-2-days", 2.0 * 86400)] {
                try IdempotencyStore.save(appID: appID, scope: "notifications_body", caller: "", key: key,
                                          response: IdempotentResponse(status: 200, body: [:], messageID: nil),
                                          now: now - age, in: connection)
            }
            // A bucket nobody sends to any more: only maintenance removes its rows.
            _ = try RateLimiter.admit(appID: appID, RateLimit(bucket: "retired", limit: 1, window: 60), now: now - 7200, in: connection)
            _ = try RateLimiter.admit(appID: appID, .liveActivitySends, now: now - 10, in: connection)
        }
        // Wrong link codes: one past the 10-minute window, one inside it.
        let device = try await app.insertSubscription(appID: appID, token: String(repeating: "ab", count: 32))
        try await app.services.database.query("""
            INSERT INTO link_code_failures (subscription_id, at)
            VALUES (\(device), to_timestamp(\(now - 601))), (\(device), to_timestamp(\(now - 60)))
            """)
        let removed = try await Maintenance.runOnce(app.services, now: now)
        #expect(removed.idempotencyKeys == 3)
        #expect(removed.rateLimitEvents == 1)
        #expect(removed.linkFailures == 1)
        let left = try await app.services.database.query("SELECT key FROM idempotency_keys")
        #expect(try left.map { try $0.decode("key", as: String.self) }.sorted() == ["body-2-days", "fresh"])
    }
}
