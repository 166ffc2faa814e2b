import Testing
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The compiled filters run against real rows: each case must select exactly its subscriptions.
@Suite struct FilterSQLDatabaseTests {
    static let now = 1_800_000_000.0

    static let population: [SubscriptionFixture] = [
        SubscriptionFixture(id: "s1", tags: ["plan": "pro", "level": "10", "paid_at": .string(String(Int(now) - 7200))],
                            language: "en", country: "US", appVersion: "1.10.0", sessionCount: 5,
                            firstSessionHoursAgo: 100, lastSessionHoursAgo: 1),
        SubscriptionFixture(id: "s2", tags: ["plan": "free", "level": "9"], language: "EN", country: "gb", appVersion: "1.9",
                            sessionCount: 1, firstSessionHoursAgo: 30, lastSessionHoursAgo: 30),
        SubscriptionFixture(id: "s3", tags: ["plan": "team", "level": "high", "paid_at": .string(String(Int(now) - 60))],
                            language: "fr", appVersion: "2.0", sessionCount: 12, firstSessionHoursAgo: 500, lastSessionHoursAgo: 48),
        SubscriptionFixture(id: "s4", country: "DE", appVersion: "beta", sessionCount: 2,
                            firstSessionHoursAgo: 2, lastSessionHoursAgo: 2),
    ]

    /// A database holding the population in one app, and an app beside it whose row would match everything.
    static func populated() async throws -> (TestApp, String) {
        let app = try await TestApp.make()
        let appID = try await app.createApp().app.id
        for subscription in population {
            try await subscription.insert(appID: appID, now: now, into: app)
        }
        let other = try await app.createApp().app.id
        try await population[0].with(id: "other").insert(appID: other, now: now, into: app)
        return (app, appID)
    }

    static func selected(_ entries: JSONValue, app: TestApp, appID: String) async throws -> [String] {
        let expression = try FilterParser.parse(entries).get()
        let rows = try await app.services.database.query("""
            SELECT s.id FROM subscriptions s WHERE s.app_id = \(appID) AND \(FilterSQL.condition(expression, now: now)) ORDER BY s.id
            """)
        return try rows.map { try $0.decode("id") }
    }

    func expectSelections(_ cases: [(JSONValue, [String])]) async throws {
        let (app, appID) = try await Self.populated()
        for (entry, expected) in cases {
            let entries: JSONValue = entry.arrayValue != nil ? entry : [entry]
            #expect(try await Self.selected(entries, app: app, appID: appID) == expected, "\(entries.serialized)")
        }
    }

    @Test func tags() async throws {
        try await expectSelections([
            (["field": "tag", "key": "plan", "relation": "=", "value": "pro"], ["s1"]),
            (["field": "tag", "key": "plan", "relation": "!=", "value": "pro"], ["s2", "s3", "s4"]),
            (["field": "tag", "key": "plan", "relation": "exists"], ["s1", "s2", "s3"]),
            (["field": "tag", "key": "plan", "relation": "not_exists"], ["s4"]),
            (["field": "tag", "key": "plan", "relation": "in_array", "value": ["pro", "team"]], ["s1", "s3"]),
            (["field": "tag", "key": "plan", "relation": "not_in_array", "value": ["pro"]], ["s2", "s3", "s4"]),
            // Numeric, not textual ("10" < "9" as text); "high" is not a number and never matches.
            (["field": "tag", "key": "level", "relation": ">", "value": "9"], ["s1"]),
            (["field": "tag", "key": "level", "relation": "<", "value": 10], ["s2"]),
            (["field": "tag", "key": "level", "relation": "=", "value": 10], ["s1"]),
            (["field": "tag", "key": "paid_at", "relation": "time_elapsed_gt", "value": 3600], ["s1"]),
            (["field": "tag", "key": "paid_at", "relation": "time_elapsed_lt", "value": "3600"], ["s3"]),
            (["field": "tag", "key": "'; DROP TABLE subscriptions; --", "relation": "exists"], []),
        ])
    }

    @Test func languageCountryAndAppVersion() async throws {
        try await expectSelections([
            (["field": "language", "relation": "=", "value": "en"], ["s1", "s2"]),
            (["field": "language", "relation": "!=", "value": "EN"], ["s3", "s4"]),
            (["field": "language", "relation": "in_array", "value": ["FR", "de"]], ["s3"]),
            (["field": "language", "relation": "not_in_array", "value": ["fr"]], ["s1", "s2", "s4"]),
            (["field": "country", "relation": "exists"], ["s1", "s2", "s4"]),
            (["field": "country", "relation": "not_exists"], ["s3"]),
            (["field": "country", "relation": "=", "value": "GB"], ["s2"]),
            (["field": "app_version", "relation": ">", "value": "1.9"], ["s1", "s3"]),
            (["field": "app_version", "relation": "<", "value": "1.10"], ["s2"]),
            (["field": "app_version", "relation": "=", "value": "2.0"], ["s3"]),
            (["field": "app_version", "relation": "in_array", "value": ["beta", "1.9"]], ["s2", "s4"]),
        ])
    }

    @Test func sessions() async throws {
        try await expectSelections([
            (["field": "session_count", "relation": ">", "value": 4], ["s1", "s3"]),
            (["field": "session_count", "relation": "=", "value": "1"], ["s2"]),
            (["field": "session_count", "relation": "!=", "value": 1], ["s1", "s3", "s4"]),
            (["field": "session_count", "relation": "<", "value": 3], ["s2", "s4"]),
            (["field": "last_session", "relation": ">", "hours_ago": 24], ["s2", "s3"]),
            (["field": "last_session", "relation": "<", "hours_ago": "24"], ["s1", "s4"]),
            (["field": "first_session", "relation": ">", "hours_ago": 50], ["s1", "s3"]),
            (["field": "first_session", "relation": "<", "hours_ago": 50], ["s2", "s4"]),
        ])
    }

    @Test func andBindsTighterThanOr() async throws {
        try await expectSelections([
            ([["field": "language", "relation": "=", "value": "en"],
              ["field": "session_count", "relation": ">", "value": 2],
              ["operator": "OR"],
              ["field": "country", "relation": "=", "value": "DE"]], ["s1", "s4"]),
            ([["field": "tag", "key": "plan", "relation": "=", "value": "free"],
              ["operator": "OR"],
              ["field": "language", "relation": "=", "value": "fr"],
              ["field": "session_count", "relation": ">", "value": 100]], ["s2"]),
            ([["field": "tag", "key": "plan", "op": "=", "value": "free"],
              ["operator": "OR"],
              ["field": "language", "op": "=", "value": "fr"],
              ["operator": "AND"],
              ["field": "session_count", "op": ">", "value": 10]], ["s2", "s3"]),
        ])
    }
}

extension SubscriptionFixture {
    func with(id: String) -> SubscriptionFixture {
        var copy = self
        copy.id = id
        return copy
    }
}
