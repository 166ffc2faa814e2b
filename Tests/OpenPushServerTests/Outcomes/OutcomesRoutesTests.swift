import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `GET /apps/{app_id}/outcomes` and `POST /v1/apps/{app_id}/outcomes`: custom outcomes counted
/// and summed per app, OneSignal's own from taps and registrations, every input bounded.
@Suite struct OutcomesRoutesTests {
    static let tokens = [String(repeating: "c1", count: 32), String(repeating: "c2", count: 32)]

    static func report(_ app: TestApp, _ created: CreatedApp, _ body: JSONValue, sdkKey: String? = nil) async -> TestResponse {
        await app.request(.post, "/v1/apps/\(created.app.id)/outcomes", headers: .sdkKey(sdkKey ?? created.sdkKey), json: body)
    }

    static func outcomes(_ app: TestApp, _ created: CreatedApp, _ query: [String: String], restKey: String? = nil) async -> TestResponse {
        await app.request(.get, "/apps/\(created.app.id)/outcomes", headers: .restKey(restKey ?? created.restKey), query: query)
    }

    /// The values of an answer, by name and aggregation.
    static func values(_ response: TestResponse) throws -> [String: Int64] {
        let items = try #require(response.json?.objectValue?["outcomes"]?.arrayValue, "outcomes: \(response.text)")
        var values: [String: Int64] = [:]
        for item in items.compactMap(\.objectValue) {
            let key = "\(item["id"]?.stringValue ?? "?").\(item["aggregation"]?.stringValue ?? "?")"
            values[key] = item["value"]?.intValue
        }
        return values
    }

    static func message(_ app: TestApp, appID: String) async throws -> String {
        let id = "msg_outcome_\(appID)"
        try await app.seed("""
            INSERT INTO messages (id, app_id, kind, name, created_at)
            VALUES (\(id), \(appID), 'notification', 'test', now())
            """)
        return id
    }

    @Test func customOutcomesCountAndSumPerAttributionAndStayInTheirApp() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        try await app.insertSubscription(appID: first.app.id, token: Self.tokens[0])
        try await app.insertSubscription(appID: second.app.id, token: Self.tokens[1])
        let messageID = try await Self.message(app, appID: first.app.id)

        let direct = await Self.report(app, first, ["token": .string(Self.tokens[0]), "name": "Purchase", "value": 500,
                                                    "notification_id": .string(messageID)])
        #expect(direct.status == 200)
        #expect(direct.json == ["ok": true])
        #expect(await Self.report(app, first, ["token": .string(Self.tokens[0]), "name": "Purchase", "value": 250]).status == 200)
        #expect(await Self.report(app, first, ["token": .string(Self.tokens[0]), "name": "Sales, Purchase"]).status == 200)
        // The second app's device reports the same name: never counted for the first.
        #expect(await Self.report(app, second, ["token": .string(Self.tokens[1]), "name": "Purchase", "value": 9_000]).status == 200)

        let total = await Self.outcomes(app, first, ["outcome_names": "Purchase.count,Purchase.sum",
                                                     "outcome_names[]": "Sales, Purchase.count", "outcome_time_range": "1d"])
        #expect(total.status == 200)
        #expect(total.json == ["outcomes": [
            ["id": "Purchase", "value": 2, "aggregation": "count"], ["id": "Purchase", "value": 750, "aggregation": "sum"],
            ["id": "Sales, Purchase", "value": 1, "aggregation": "count"],
        ]])
        let direct1 = try Self.values(await Self.outcomes(app, first, ["outcome_names": "Purchase.sum", "outcome_attribution": "direct"]))
        #expect(direct1 == ["Purchase.sum": 500])
        let unattributed = try Self.values(await Self.outcomes(app, first, ["outcome_names": "Purchase.sum",
                                                                            "outcome_attribution": "unattributed"]))
        #expect(unattributed == ["Purchase.sum": 250])
        let influenced = try Self.values(await Self.outcomes(app, first, ["outcome_names": "Purchase.count",
                                                                          "outcome_attribution": "influenced"]))
        #expect(influenced == ["Purchase.count": 0])
        // iOS devices are device type 0; macOS (9) has none here.
        #expect(try Self.values(await Self.outcomes(app, first, ["outcome_names": "Purchase.count", "outcome_platforms": "0"]))
                == ["Purchase.count": 2])
        #expect(try Self.values(await Self.outcomes(app, first, ["outcome_names": "Purchase.count", "outcome_platforms": "9,5"]))
                == ["Purchase.count": 0])
        #expect(try Self.values(await Self.outcomes(app, second, ["outcome_names": "Purchase.sum"])) == ["Purchase.sum": 9_000])
    }

    @Test func anotherAppsKeysAndObjectsAreRefused() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        try await app.insertSubscription(appID: first.app.id, token: Self.tokens[0])
        try await app.insertSubscription(appID: second.app.id, token: Self.tokens[1])
        let otherMessage = try await Self.message(app, appID: second.app.id)

        // The second app's SDK key on the first app's path.
        let wrongKey = await Self.report(app, first, ["token": .string(Self.tokens[0]), "name": "Purchase"], sdkKey: second.sdkKey)
        #expect(wrongKey.status == 401)
        #expect(wrongKey.json?.objectValue?["detail"] != nil)
        // The second app's device token, or its notification, through the first app.
        let foreignToken = await Self.report(app, first, ["token": .string(Self.tokens[1]), "name": "Purchase"])
        #expect(foreignToken.status == 404)
        #expect(foreignToken.json == ["detail": "unknown device token for this app"])
        let foreignMessage = await Self.report(app, first, ["token": .string(Self.tokens[0]), "name": "Purchase",
                                                            "notification_id": .string(otherMessage)])
        #expect(foreignMessage.status == 404)
        #expect(foreignMessage.json == ["detail": .string("notification '\(otherMessage)' not found")])
        // Reading with the other app's REST key.
        let read = await Self.outcomes(app, first, ["outcome_names": "Purchase.count"], restKey: second.restKey)
        #expect(read.status == 401)
        #expect(read.json?.objectValue?["errors"] != nil)
        // Nothing was recorded for either app.
        let rows = try await app.services.database.query("SELECT count(*)::int8 AS n FROM outcome_hours")
        #expect(try rows[0].decode("n", as: Int64.self) == 0)
    }

    @Test func reportsAreBounded() async throws {
        // The clock stands still: the 61 reports fall in one 60-second window however slow the machine.
        let app = try await TestApp.make(now: ManualClock(WallClock.now()).source)
        let created = try await app.createApp()
        try await app.insertSubscription(appID: created.app.id, token: Self.tokens[0])
        let token = JSONValue.string(Self.tokens[0])

        let bad = await Self.report(app, created, ["token": token, "name": "bad/name", "value": -1, "colour": "red"])
        #expect(bad.status == 400)
        #expect(bad.json == ["detail": "name: a name may hold only letters, digits, spaces and _ - . , :; value must be an integer from 0 to 1000000000; unknown field 'colour'"])
        let long = await Self.report(app, created, ["token": token, "name": .string(String(repeating: "a", count: 65))])
        #expect(long.status == 400)
        let reserved = await Self.report(app, created, ["token": token, "name": "os__click"])
        #expect(reserved.status == 400)
        let huge = await Self.report(app, created, ["token": token, "name": "Purchase", "value": 1_000_000_001])
        #expect(huge.status == 400)
        let missing = await Self.report(app, created, ["name": "Purchase"])
        #expect(missing.json == ["detail": "token is required"])

        // One device: 60 reports a minute, then 429 with Retry-After.
        for _ in 0..<OutcomeLimits.reportsPerDevice {
            #expect(await Self.report(app, created, ["token": token, "name": "Tick"]).status == 200)
        }
        let limited = await Self.report(app, created, ["token": token, "name": "Tick"])
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "60")
        #expect(try Self.values(await Self.outcomes(app, created, ["outcome_names": "Tick.count"])) == ["Tick.count": 60])
    }

    @Test func anAppRecordsABoundedNumberOfNamesPerHour() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let subscriptionID = try await app.insertSubscription(appID: created.app.id, token: Self.tokens[0])
        let now = app.services.now()
        let appID = created.app.id
        let recorded = try await app.services.database.transaction { connection -> [OutcomeStore.Recorded] in
            try (0..<OutcomeLimits.namesPerAppHour).map { index in
                let report = OutcomeReport(token: Self.tokens[0], name: "Name \(index)", value: 1, notificationID: nil)
                return try OutcomeStore.record(report, appID: appID, subscriptionID: subscriptionID, now: now, in: connection)
            }
        }
        #expect(recorded == Array(repeating: .recorded, count: OutcomeLimits.namesPerAppHour))
        // A further name is refused; a name already recorded this hour keeps counting.
        let refused = await Self.report(app, created, ["token": .string(Self.tokens[0]), "name": "One too many"])
        #expect(refused.status == 429)
        #expect(refused.json == ["detail": .string(OutcomeService.tooManyNames)])
        #expect(await Self.report(app, created, ["token": .string(Self.tokens[0]), "name": "Name 7"]).status == 200)
        #expect(try Self.values(await Self.outcomes(app, created, ["outcome_names": "Name 7.count,One too many.count"]))
                == ["Name 7.count": 2, "One too many.count": 0])
    }

    @Test func queriesAreValidated() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let empty = await Self.outcomes(app, created, [:])
        #expect(empty.status == 400)
        #expect(empty.json == ["errors": ["outcome_names is required"]])
        let bad = await Self.outcomes(app, created, [
            "outcome_names": "Purchase,os__session_duration.count,os__click.sum", "outcome_time_range": "2y",
            "outcome_platforms": "0,x", "outcome_attribution": "some",
        ])
        #expect(bad.json == ["errors": [
            "outcome name 'Purchase' must end in .count or .sum",
            "outcome 'os__session_duration' is not recorded by OpenPush (it records os__click and os__session_count)",
            "outcome 'os__click' supports only .count",
            "outcome_time_range must be one of: 1h, 1d, 1mo, 30d",
            "outcome_platforms must be comma-separated device types from 0 to 14",
            "outcome_attribution must be one of: direct, influenced, unattributed, total",
        ]])
        let many = (0...OutcomeLimits.maximumNamesPerQuery).map { "N\($0).count" }.joined(separator: ",")
        #expect(await Self.outcomes(app, created, ["outcome_names": many]).json == ["errors": ["outcome_names: at most 20 names"]])
    }

    @Test func clicksAndSessionsComeFromTapsAndRegistrationsOfTheAppOnly() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        // Registrations are sessions: two devices of the first app, one of the second.
        for (created, token) in [(first, Self.tokens[0]), (first, Self.tokens[1]), (second, String(repeating: "c3", count: 32))] {
            let registered = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions", headers: .sdkKey(created.sdkKey),
                                               json: ["token": .string(token)])
            #expect(registered.status == 200 || registered.status == 201, "register: \(registered.text)")
        }
        // A tap on a Live Activity push of the first app's first device.
        let rows = try await app.services.database.query("SELECT id FROM subscriptions WHERE token = \(Self.tokens[0])")
        let subscriptionID: String = try rows[0].decode("id")
        try await app.insertLiveActivityPush(appID: first.app.id, subscriptionID: subscriptionID, activityID: "order-1")
        let now = app.services.now()
        let tapped = try await app.services.database.transaction { connection in
            try ClickStore.record(appID: first.app.id, subscriptionID: subscriptionID, activityID: "order-1", messageID: nil,
                                  activityType: nil, now: now, in: connection)
        }
        #expect(tapped)

        let names = ["outcome_names": "os__click.count,os__session_count.count", "outcome_time_range": "1h"]
        #expect(try Self.values(await Self.outcomes(app, first, names)) == ["os__click.count": 1, "os__session_count.count": 2])
        #expect(try Self.values(await Self.outcomes(app, second, names)) == ["os__click.count": 0, "os__session_count.count": 1])
        // Taps are direct, sessions unattributed.
        var direct = names
        direct["outcome_attribution"] = "direct"
        #expect(try Self.values(await Self.outcomes(app, first, direct)) == ["os__click.count": 1, "os__session_count.count": 0])
    }

    @Test func maintenanceDropsOutcomeHoursPastTheirRetention() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let now = app.services.now()
        let kept = now - Double(OutcomeLimits.retentionDays - 1) * 86_400
        let expired = now - Double(OutcomeLimits.retentionDays + 1) * 86_400
        for (name, at) in [("Kept", kept), ("Expired", expired)] {
            try await app.seed("""
                INSERT INTO outcome_hours (app_id, hour, name, platform, attribution, count, sum)
                VALUES (\(created.app.id), to_timestamp(\(at)), \(name), 'ios', 'unattributed', 1, 0)
                """)
        }
        try await Maintenance.runOnce(app.services, now: now)
        let names: [String] = try await app.services.database.query("SELECT name FROM outcome_hours ORDER BY name").map {
            try $0.decode("name")
        }
        #expect(names == ["Kept"])
    }
}
