import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport

/// `ios_badgeType: Increase` raises a per-device counter kept in an `integer` column.
@Suite struct BadgeCounterTests {
    /// Expanded by a worker (a segment send), a page at a time.
    @Test func increaseSaturatesAtTheLargestIntegerInsteadOfFailing() async throws {
        try await Self.increaseSaturates(audience: nil)
    }

    /// Expanded in the send's own transaction (devices named by id, due now).
    @Test func increaseSaturatesWhenTheSendItselfQueuesTheDevices() async throws {
        try await Self.increaseSaturates(audience: .named)
    }

    enum Audience { case named }

    static func increaseSaturates(audience: Audience?) async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let near = try await app.insertSubscription(appID: created.app.id, token: String(repeating: "a", count: 64))
        let low = try await app.insertSubscription(appID: created.app.id, token: String(repeating: "b", count: 64))
        try await app.services.database.query("UPDATE subscriptions SET badge_count = 2147483600 WHERE id = \(near)")
        try await app.services.database.query("UPDATE subscriptions SET badge_count = 2 WHERE id = \(low)")
        var body: JSONObject = ["app_id": .string(created.app.id), "contents": ["en": "More"], "ios_badgeType": "Increase",
                                "ios_badgeCount": 100_000]
        switch audience {
        case .named?: body["include_subscription_ids"] = [.string(near), .string(low)]
        case nil: body["included_segments"] = ["Subscribed Users"]
        }
        let response = await app.request(.post, "/notifications", headers: .restKey(created.restKey), json: .object(body))
        #expect(response.status == 200, "\(response.text)")
        if audience == nil {
            let step = try await app.services.database.transaction {
                try NotificationExpansion.expandNextPage(in: $0)
            }
            guard case .expanded(_, let rows) = step else { Issue.record("nothing expanded: \(step)"); return }
            #expect(rows == 2)
        }
        let badges = try await app.services.database.query("""
            SELECT s.id, s.badge_count, q.badge
            FROM subscriptions s
            JOIN (SELECT r.subscription_id, r.badge FROM delivery_jobs j, unnest(j.subscription_ids, j.badges) AS r(subscription_id, badge))
                 AS q ON q.subscription_id = s.id
            WHERE s.app_id = \(created.app.id)
            """)
        var byID: [String: (Int, Int)] = [:]
        for row in badges { byID[try row.decode("id")] = (try row.decode("badge_count"), try row.decode("badge")) }
        #expect(byID[near]?.0 == 2_147_483_647 && byID[near]?.1 == 2_147_483_647)
        #expect(byID[low]?.0 == 100_002 && byID[low]?.1 == 100_002)
    }

    @Test func aBadgeCountOutsideItsRangeIsA400NamingIt() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        for count: JSONValue in [2_147_483_648, -2_147_483_649, 1e300, 100_001] {
            let response = await app.request(.post, "/notifications", headers: .restKey(created.restKey), json: [
                "app_id": .string(created.app.id), "contents": ["en": "More"], "ios_badgeType": "Increase",
                "ios_badgeCount": count, "included_segments": ["Subscribed Users"],
            ])
            #expect(response.status == 400)
            #expect(response.json == ["errors": ["ios_badgeCount must be an integer from -100000 to 100000"]])
        }
    }
}
