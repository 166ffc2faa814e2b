import Foundation
import Testing
import APNs
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// Apple's 410 carries `timestamp`, the last time the token was valid: a device that registered
/// the same token again after it keeps its token.
@Suite struct TokenDeathTimestampTests {
    static func invalidated(_ harness: DeliveryHarness, _ id: String) async throws -> Bool {
        try await harness.app.services.database.query("""
            SELECT token_invalid_at IS NOT NULL AS invalid FROM subscriptions WHERE id = \(id)
            """).firstRow().decode("invalid")
    }

    @Test func aTokenRegisteredAfterApplesTimestampStaysValid() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        // APNs says these tokens stopped being valid an hour ago.
        harness.simulator.setBehaviour(.unregistered(since: .seconds(3600)), forTokenPrefix: "dead01")
        let token = { (n: Int) in "dead01" + String(format: "%058x", n) }
        let fresh = try await harness.app.insertSubscription(appID: harness.created.app.id, token: token(1))
        let stale = try await harness.app.insertSubscription(appID: harness.created.app.id, token: token(2))
        // The second device last registered its token two hours ago, before APNs' timestamp.
        try await harness.app.services.database.query("""
            UPDATE subscriptions SET last_session_at = now() - interval '2 hours' WHERE id = \(stale)
            """)
        let sent = await NotificationRoutesTests.post(harness, ["include_subscription_ids": [.string(fresh), .string(stale)],
                                                                "contents": ["en": "x"]])
        try #require(sent.status == 200, "send: \(sent.text)")
        try await harness.drain()
        let reasons = try await harness.app.services.database.query("SELECT error_reason FROM deliveries").map {
            try $0.decode("error_reason", as: String?.self)
        }
        #expect(reasons == ["Unregistered", "Unregistered"])
        #expect(try await !Self.invalidated(harness, fresh), "registered after the timestamp: still good")
        #expect(try await Self.invalidated(harness, stale))
    }
}
