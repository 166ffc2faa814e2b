import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Segment names and raw filters resolved to the subscriptions they select, against real rows.
@Suite struct SegmentAudienceTests {
    static let now = FilterSQLDatabaseTests.now

    struct World {
        var app: TestApp
        var owner: CreatedApp
        var other: CreatedApp
    }

    /// The filter tests' population plus a disabled and a retired subscription that match
    /// everything; another app with a copy of every row; segments `English` and `Power` in both.
    static func world() async throws -> World {
        let app = try await TestApp.make()
        let owner = try await app.createApp()
        let other = try await app.createApp()
        var everyone = FilterSQLDatabaseTests.population
        everyone.append(everyone[0].with(id: "s5-disabled").disabled())
        everyone.append(everyone[0].with(id: "s6-retired").retiredNow())
        for subscription in everyone {
            try await subscription.insert(appID: owner.app.id, now: now, into: app)
            try await subscription.with(id: "b-" + subscription.id).insert(appID: other.app.id, now: now, into: app)
        }
        for created in [owner, other] {
            for (name, filters) in [("English", [["field": "language", "relation": "=", "value": "en"]]),
                                    ("Power", [["field": "session_count", "relation": ">", "value": 4]])] as [(String, JSONValue)] {
                let response = await app.request(.post, "/apps/\(created.app.id)/segments", headers: .restKey(created.restKey),
                                                 json: ["name": .string(name), "filters": filters])
                #expect(response.status == 201)
            }
        }
        return World(app: app, owner: owner, other: other)
    }

    static func ids(_ world: World, appID: String? = nil, tenantID: String? = nil, included: [String],
                    excluded: [String] = []) async throws -> [String] {
        let appID = appID ?? world.owner.app.id
        return try await world.app.services.database.withConnection { connection in
            let audience = try SegmentAudience.subscriptionIDs(appID: appID, tenantID: tenantID, included: included,
                                                               excluded: excluded, now: now, in: connection)
            return try connection.query("SELECT id FROM (\(audience)) AS audience ORDER BY id").map { try $0.decode("id") }
        }
    }

    @Test func segmentsSelectReachableSubscriptionsOfTheirAppOnly() async throws {
        let world = try await Self.world()
        #expect(try await Self.ids(world, included: ["Subscribed Users"]) == ["s1", "s2", "s3", "s4"])
        #expect(try await Self.ids(world, included: ["English"]) == ["s1", "s2"])
        #expect(try await Self.ids(world, included: ["English", "Power"]) == ["s1", "s2", "s3"])
        #expect(try await Self.ids(world, included: ["Subscribed Users"], excluded: ["English"]) == ["s3", "s4"])
        #expect(try await Self.ids(world, included: ["Power"], excluded: ["English", "Power"]) == [])
        #expect(try await Self.ids(world, included: ["English"], excluded: ["Subscribed Users"]) == [])
        #expect(try await Self.ids(world, included: []) == [])
        // The other app's segment of the same name selects only its own rows.
        #expect(try await Self.ids(world, appID: world.other.app.id, included: ["English"]) == ["b-s1", "b-s2"])
    }

    /// Last sessions either side of the 7-day line (exactly 7 days counts as inactive), a disabled
    /// old one that no segment reaches, and the same rows in another app.
    static func sessionWorld() async throws -> World {
        let app = try await TestApp.make()
        let owner = try await app.createApp()
        let other = try await app.createApp()
        let rows = [("fresh", 1.0), ("six-days", 6 * 24 + 23.0), ("seven-days", 7 * 24.0), ("eight-days", 8 * 24.0),
                    ("old", 1000.0)].map { SubscriptionFixture(id: $0.0, lastSessionHoursAgo: $0.1) }
            + [SubscriptionFixture(id: "old-disabled", lastSessionHoursAgo: 1000).disabled()]
        for row in rows {
            try await row.insert(appID: owner.app.id, now: now, into: app)
            try await row.with(id: "b-" + row.id).insert(appID: other.app.id, now: now, into: app)
        }
        return World(app: app, owner: owner, other: other)
    }

    @Test func builtInSegmentsSelectByLastSessionAndTheirAliases() async throws {
        let world = try await Self.sessionWorld()
        let everyone = ["eight-days", "fresh", "old", "seven-days", "six-days"]
        #expect(try await Self.ids(world, included: ["Subscribed Users"]) == everyone)
        #expect(try await Self.ids(world, included: ["All"]) == everyone)
        #expect(try await Self.ids(world, included: ["Active Users"]) == ["fresh", "six-days"])
        #expect(try await Self.ids(world, included: ["Inactive Users"]) == ["eight-days", "old", "seven-days"])
        #expect(try await Self.ids(world, included: ["Active Users", "Inactive Users"]) == everyone)
        #expect(try await Self.ids(world, appID: world.other.app.id, included: ["Active Users"]) == ["b-fresh", "b-six-days"])
    }

    @Test func builtInSegmentsWorkAsExclusions() async throws {
        let world = try await Self.sessionWorld()
        #expect(try await Self.ids(world, included: ["All"], excluded: ["Inactive Users"]) == ["fresh", "six-days"])
        #expect(try await Self.ids(world, included: ["Subscribed Users"], excluded: ["Active Users"])
                == ["eight-days", "old", "seven-days"])
        #expect(try await Self.ids(world, included: ["Active Users"], excluded: ["All"]) == [])
        #expect(try await Self.ids(world, included: ["All"], excluded: ["Subscribed Users"]) == [])
        #expect(try await Self.ids(world, included: ["Inactive Users"], excluded: ["Active Users"])
                == ["eight-days", "old", "seven-days"])
    }

    @Test func aBuiltInNameMeansTheBuiltInEvenWhereAnOlderSavedSegmentHasIt() async throws {
        let world = try await Self.sessionWorld()
        // Stored before the name was reserved; selects nobody on its own.
        try await world.app.services.database.query("""
            INSERT INTO segments (id, app_id, name, filters)
            VALUES ('legacy-all', \(world.owner.app.id), 'All', '[{"field":"language","relation":"=","value":"xx"}]')
            """)
        #expect(try await Self.ids(world, included: ["All"]).count == 5)
    }

    @Test func unknownSegmentNamesAreOne400NamingEach() async throws {
        let world = try await Self.world()
        await #expect(throws: APIError(status: 400, messages: ["segment 'Nope' not found", "segment 'Gone' not found"])) {
            _ = try await Self.ids(world, included: ["Nope", "English", "Nope", "Active Users"], excluded: ["Gone", "All"])
        }
        // Built-in names are exact, like saved ones.
        await #expect(throws: APIError(status: 400, "segment 'active users' not found")) {
            _ = try await Self.ids(world, included: ["active users"])
        }
        // A segment saved only in the owner's app is unknown to the other app.
        let appID = world.owner.app.id
        try await world.app.services.database.query("""
            INSERT INTO segments (id, app_id, name, filters) VALUES ('owner-only', \(appID), 'Owner only', '[{"field":"language","relation":"exists"}]')
            """)
        #expect(try await Self.ids(world, included: ["Owner only"]) == ["s1", "s2", "s3"])
        await #expect(throws: APIError(status: 400, "segment 'Owner only' not found")) {
            _ = try await Self.ids(world, appID: world.other.app.id, included: ["Owner only"])
        }
    }

    @Test func rawFiltersAreRestrictedTheSameWay() async throws {
        let world = try await Self.world()
        let filters = try FilterParser.parse([["field": "tag", "key": "plan", "relation": "exists"], ["operator": "OR"],
                                              ["field": "country", "relation": "=", "value": "de"]]).get()
        let audience = SegmentAudience.subscriptionIDs(appID: world.owner.app.id, filters: filters, now: Self.now)
        let rows = try await world.app.services.database.query("SELECT id FROM (\(audience)) AS audience ORDER BY id")
        #expect(try rows.map { try $0.decode("id", as: String.self) } == ["s1", "s2", "s3", "s4"])
    }

    @Test func aTenantKeySeesOnlyItsLinkedDevices() async throws {
        let world = try await Self.world()
        let appID = world.owner.app.id
        try await world.app.services.database.query("""
            INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_1', \(appID), 'code-1')
            """)
        try await world.app.services.database.query("UPDATE subscriptions SET tenant_id = 'ten_1' WHERE id IN ('s1', 's3')")
        #expect(try await Self.ids(world, tenantID: "ten_1", included: ["Subscribed Users"]) == ["s1", "s3"])
        #expect(try await Self.ids(world, tenantID: "ten_1", included: ["English"]) == ["s1"])
    }
}

extension SubscriptionFixture {
    func disabled() -> SubscriptionFixture {
        var copy = self
        copy.enabled = false
        return copy
    }

    func retiredNow() -> SubscriptionFixture {
        var copy = self
        copy.retired = true
        return copy
    }
}
