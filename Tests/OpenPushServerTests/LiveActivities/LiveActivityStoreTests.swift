import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The window as SQL, and the store operations the delivery engine and retirement call.
@Suite struct LiveActivityStoreTests {
    static let hour = 3600.0
    static let minute = 60.0
    static let updateToken = String(repeating: "ab", count: 32)

    /// Registers one activity per age, each on its own device, with `started_at` moved back.
    static func rowsAged(_ ages: [Double], app: TestApp, appID: String) async throws -> [Double: String] {
        var ids: [Double: String] = [:]
        for (index, age) in ages.enumerated() {
            let token = String(format: "%064x", index + 1)
            let subscription = try await app.insertSubscription(appID: appID, token: token)
            let now = app.services.now()
            let registration = try await app.services.database.transaction { connection in
                try LiveActivityStore.register(appID: appID, subscriptionID: subscription, activityID: "game-1", activityType: "Score",
                                               updateToken: updateToken, requestedStaleAt: nil, now: now, in: connection)
            }
            try await app.services.database.query("""
                UPDATE live_activities SET started_at = to_timestamp(\(now - age)) WHERE id = \(registration.id)
                """)
            ids[age] = registration.id
        }
        return ids
    }

    static func selected(_ event: LiveActivityEvent, app: TestApp, appID: String) async throws -> Set<String> {
        let rows = try await app.services.database.query("""
            SELECT la.id FROM live_activities la
            WHERE la.app_id = \(appID) AND \(LiveActivityWindow.selectable(event, now: app.services.now()))
            """)
        return Set(try rows.map { try $0.decode("id", as: String.self) })
    }

    @Test func theSQLWindowAgreesWithThePureOneAtEveryBoundary() async throws {
        let clock = ManualClock()
        let app = try await TestApp.make(now: clock.source)
        let appID = try await app.createApp().app.id
        let ages = [7 * Self.hour + 59 * Self.minute, 8 * Self.hour + Self.minute, 11 * Self.hour + 59 * Self.minute,
                    12 * Self.hour + Self.minute]
        let ids = try await Self.rowsAged(ages, app: app, appID: appID)
        for event in LiveActivityEvent.allCases {
            let expected = Set(ages.filter {
                LiveActivityWindow.selects(event, startedAt: clock.now() - $0, endedAt: nil, now: clock.now())
            }.map { ids[$0]! })
            #expect(try await Self.selected(event, app: app, appID: appID) == expected, "\(event)")
        }
        #expect(try await Self.selected(.update, app: app, appID: appID) == [ids[ages[0]]!])
        #expect(try await Self.selected(.end, app: app, appID: appID) == [ids[ages[0]]!, ids[ages[1]]!, ids[ages[2]]!])
    }

    @Test func aDeadUpdateTokenEndsOnlyThatRow() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let ids = try await Self.rowsAged([0, 60], app: app, appID: appID)
        let now = app.services.now()
        let ended = try await app.services.database.withConnection {
            try LiveActivityStore.endForDeadToken(rowID: ids[0]!, now: now, in: $0)
        }
        #expect(ended)
        #expect(try await Self.selected(.update, app: app, appID: appID) == [ids[60]!])
        let reason = try await app.services.database.query("SELECT ended_reason FROM live_activities WHERE id = \(ids[0]!)")
        #expect(try reason[0].decode("ended_reason", as: String.self) == "dead_token")
        // The device itself stays reachable.
        let retired = try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions WHERE retired_at IS NOT NULL")
        #expect(try retired[0].decode("n", as: Int.self) == 0)
    }

    @Test func aDeadPushToStartTokenIsDeleted() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let subscription = try await app.insertSubscription(appID: appID, token: "abcd")
        let now = app.services.now()
        let (id, _) = try await app.services.database.withConnection {
            try PushToStartStore.register(appID: appID, subscriptionID: subscription, activityType: "T", token: Self.updateToken,
                                          now: now, in: $0)
        }
        #expect(try await app.services.database.withConnection { try PushToStartStore.deleteDeadToken(rowID: id, in: $0) })
        let left = try await app.services.database.query("SELECT count(*)::int AS n FROM push_to_start_tokens")
        #expect(try left[0].decode("n", as: Int.self) == 0)
    }

    @Test func closingASubscriptionEndsEveryOpenActivityOnIt() async throws {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        let ids = try await Self.rowsAged([0], app: app, appID: appID)
        let owner = try await app.services.database.query("SELECT subscription_id FROM live_activities WHERE id = \(ids[0]!)")
        let subscription: String = try owner[0].decode("subscription_id")
        let now = app.services.now()
        let closed = try await app.services.database.withConnection {
            try LiveActivityStore.closeAll(subscriptionID: subscription, now: now, in: $0)
        }
        #expect(closed == 1)
        #expect(try await Self.selected(.end, app: app, appID: appID).isEmpty)
    }
}
