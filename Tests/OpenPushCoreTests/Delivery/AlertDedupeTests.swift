import Testing
import OpenPushCore

/// The pure part of durable dedupe: the window, which pushes need a claim, and what happens to
/// a claim after the push. The claims themselves are PostgreSQL's (`AlertDedupeTests` in the
/// server tests).
@Suite struct AlertDedupeTests {
    static let now = 1_800_000_000.0

    static func context(_ body: JSONObject, app: String = "app_a", windowDays: Int = 30) throws -> DeliveryContext {
        var request: JSONObject = ["app_id": .string(app), "included_segments": ["Subscribed Users"]]
        for (key, value) in body { request[key] = value }
        var context = DeliveryContext()
        context.add(DeliveryContext.Message(id: "msg_1", appID: app, notification: try NotificationSendParser.parse(request).get()))
        var known = DeliveryContext.App(id: app, bundleID: "com.example.app")
        known.dedupeWindowDays = windowDays
        context.add(known)
        return context
    }

    static func delivery(_ id: Int64 = 0, kind: TokenKind = .device, app: String = "app_a", subscription: String = "sub_1") -> ClaimedDelivery {
        ClaimedDelivery(id: id, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: app,
                        subscriptionID: subscription, liveActivityID: nil, tokenKind: kind, token: "aa", badge: nil,
                        attempts: 1, createdAt: now)
    }

    @Test func theWindowIsWholeDaysBackFromNow() {
        #expect(AlertDedupe.windowStart(now: Self.now, days: 30) == Self.now - 30 * 86_400)
        var clock = Self.now
        let claimedAt = clock
        clock += 30 * 86_400
        #expect(AlertDedupe.dedupes(claimedAt: claimedAt, now: clock, days: 30))
        clock += 1
        #expect(!AlertDedupe.dedupes(claimedAt: claimedAt, now: clock, days: 30))
        #expect(AlertDedupe.dedupes(claimedAt: claimedAt, now: clock, days: 31))
        #expect(AlertDedupe.pruneBefore(now: clock, days: 1) == clock - 86_400)
    }

    @Test func onlyAlertsOfAMessageWithAKeyNeedAClaim() throws {
        let keyed = try Self.context(["contents": ["en": "Hi"], "dedupe_key": "order-7-shipped"], windowDays: 7)
        let claim = try #require(AlertDedupe.claim(for: Self.delivery(), context: keyed, now: Self.now))
        #expect(claim == AlertDedupe.Claim(appID: "app_a", dedupeKey: "order-7-shipped", subscriptionID: "sub_1", messageID: "msg_1",
                                           windowStart: Self.now - 7 * 86_400))
        #expect(AlertDedupe.claim(for: Self.delivery(), context: try Self.context(["contents": ["en": "Hi"]]), now: Self.now) == nil)
        let background = try Self.context(["content_available": true, "dedupe_key": "k"])
        #expect(AlertDedupe.claim(for: Self.delivery(), context: background, now: Self.now) == nil)
        let widget = try Self.context(["push_type": "widgets", "dedupe_key": "k"])
        #expect(AlertDedupe.claim(for: Self.delivery(kind: .widget), context: widget, now: Self.now) == nil)
        // Another app's delivery finds no message of this app.
        #expect(AlertDedupe.claim(for: Self.delivery(app: "app_b"), context: keyed, now: Self.now) == nil)
    }

    @Test func aClaimGoesToTheFirstPushThatWonItAndEveryOtherIsDeduplicated() {
        func claim(_ subscription: String) -> AlertDedupe.Claim {
            AlertDedupe.Claim(appID: "app_a", dedupeKey: "k", subscriptionID: subscription, messageID: "msg_1", windowStart: 0)
        }
        let wanted: [(id: Int64, claim: AlertDedupe.Claim)] = [(0, claim("sub_1")), (1, claim("sub_2")), (2, claim("sub_1"))]
        let (granted, deduplicated) = AlertDedupe.split(wanted, won: [claim("sub_1").key])
        #expect(granted == [0: claim("sub_1")])
        #expect(deduplicated == [1, 2])
    }

    @Test func onlyAPushThatEndedInErrorGivesItsClaimBack() {
        #expect(AlertDedupe.releases(after: .finished(.error, reason: "BadDeviceToken")))
        #expect(!AlertDedupe.releases(after: .finished(.accepted, reason: nil)))
        #expect(!AlertDedupe.releases(after: .retry(reason: "InternalServerError")))
        #expect(!AlertDedupe.releases(after: .held(reason: "InvalidProviderToken")))
    }
}
