import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The stats routes by push service: one job of iPhones, an Android phone and a browser shows
/// each service's figures and the totals as before; another app's never show; the recount
/// counts them alike; rows of one second written in several shards add up.
@Suite struct StatsByServiceTests {
    static let orgKey = "stats-by-service-organization-key"
    static let org: HTTPHeaders = .restKey(orgKey)

    static func object(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        try #require(response.status == 200, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try #require(response.json?.objectValue, sourceLocation: sourceLocation)
    }

    static func service(sent: Int64, accepted: Int64, failed: Int64, clicked: Int64 = 0,
                        errors: JSONObject = [:]) -> JSONValue {
        .object(["sent": .int(sent), "accepted": .int(accepted), "failed": .int(failed), "suppressed": 0, "clicked": .int(clicked),
                 "errors_by_reason": .object(errors)])
    }

    @Test func aMixedJobShowsEachServiceAndTheSameTotals() async throws {
        let setup = try await WebPushDeliveryTests.setup(organizationKey: Self.orgKey)
        defer { Task { await setup.shutdown() } }
        let a = setup.a, b = setup.b
        _ = try await setup.apple(a, token: String(repeating: "f2", count: 32))
        _ = try await setup.apple(a, token: "dead" + String(repeating: "0", count: 60))
        _ = try await setup.android(a, token: "fcm-token-of-the-stats")
        try await setup.browser(a, path: "/push/stats-a")
        // The other app: an iPhone and a browser.
        _ = try await setup.apple(b, token: String(repeating: "f3", count: 32))
        _ = try await setup.browser(b, path: "/push/stats-b")
        let first = try await setup.send(a)
        let second = try await setup.send(b)
        try await setup.run {
            let records = (try await setup.records(first).count, try await setup.records(second).count)
            return records == (4, 2)
        }
        let tap = await setup.harness.app.request(.post, "/v1/apps/\(a.app.id)/notifications/\(first)/opened",
                                                  headers: .sdkKey(a.sdkKey), json: ["token": .string(setup.web.endpoint(path: "/push/stats-a"))])
        #expect(tap.status == 200, "\(tap.text)")

        let app = setup.harness.app
        var stats = try Self.object(await app.request(.get, "/apps/\(a.app.id)/stats", headers: Self.org))
        #expect(stats["sent"] == 4)
        #expect(stats["accepted"] == 3)
        #expect(stats["failed"] == 1)
        #expect(stats["clicked"] == 1)
        #expect(stats["errors_by_reason"] == ["Unregistered": 1])
        let expectedA: JSONValue = [
            "apns": Self.service(sent: 2, accepted: 1, failed: 1, errors: ["Unregistered": 1]),
            "fcm": Self.service(sent: 1, accepted: 1, failed: 0),
            "webpush": Self.service(sent: 1, accepted: 1, failed: 0, clicked: 1),
        ]
        #expect(stats["by_service"] == expectedA)
        // The other app's own only, every service shown (zeros for the one it has no device of).
        let other = try Self.object(await app.request(.get, "/apps/\(b.app.id)/stats", headers: Self.org))
        #expect(other["sent"] == 2)
        #expect(other["by_service"] == [
            "apns": Self.service(sent: 1, accepted: 1, failed: 0),
            "fcm": Self.service(sent: 0, accepted: 0, failed: 0),
            "webpush": Self.service(sent: 1, accepted: 1, failed: 0),
        ])
        let series = try Self.object(await app.request(.get, "/stats/throughput", headers: Self.org))
        #expect(series["totals"] == ["accepted": 5, "failed": 1])
        #expect(series["by_service"] == [
            "apns": ["accepted": 2, "failed": 1], "fcm": ["accepted": 1, "failed": 0], "webpush": ["accepted": 2, "failed": 0],
        ])
        // Counted again from the records (the recount, as after records written in SQL): the same.
        try await app.recountDeliveryStats([a.app.id, b.app.id])
        stats = try Self.object(await app.request(.get, "/apps/\(a.app.id)/stats", headers: Self.org))
        #expect(stats["by_service"] == expectedA)
    }

    /// Completions of one app in one second add to different shards of that second's row; the
    /// routes sum them (and the services), and another app's rows stay its own.
    @Test func rowsOfOneSecondInSeveralShardsAddUp() async throws {
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = Self.orgKey })
        let a = try await app.createApp().app.id
        let b = try await app.createApp(AppSettings(name: "Other", apnsBundleID: "com.example.other")).app.id
        let accepted = DeliveryTally(Array(repeating: (state: DeliveryState.accepted, reason: String?.none), count: 3))
        let failed = DeliveryTally([(state: .error, reason: "Unregistered"), (state: .accepted, reason: nil)])
        // One transaction: one now(), so one second for every row.
        try await app.services.database.transaction { connection in
            try DeliveryCounts.addToStats([.apns: accepted, .fcm: failed], appID: a, shard: 0, in: connection)
            try DeliveryCounts.addToStats([.apns: failed], appID: a, shard: 3, in: connection)
            try DeliveryCounts.addToStats([.apns: accepted], appID: a, shard: 3, in: connection)
            try DeliveryCounts.addToStats([.webPush: accepted], appID: b, shard: 1, in: connection)
        }
        let rows = try await app.services.database.query("""
            SELECT service, shard, accepted, failed FROM delivery_stats WHERE app_id = \(a) ORDER BY service, shard
            """).map { "\(try $0.decode("service", as: String.self))/\(try $0.decode("shard", as: Int16.self)): "
                     + "\(try $0.decode("accepted", as: Int64.self)) \(try $0.decode("failed", as: Int64.self))" }
        #expect(rows == ["apns/0: 3 0", "apns/3: 4 1", "fcm/0: 1 1"])
        let stats = try Self.object(await app.request(.get, "/apps/\(a)/stats", headers: Self.org))
        #expect(stats["sent"] == 10)
        #expect(stats["accepted"] == 8)
        #expect(stats["errors_by_reason"] == ["Unregistered": 2])
        #expect(stats["by_service"]?.objectValue?["apns"] == Self.service(sent: 8, accepted: 7, failed: 1,
                                                                              errors: ["Unregistered": 1]))
        #expect(stats["by_service"]?.objectValue?["fcm"] == Self.service(sent: 2, accepted: 1, failed: 1,
                                                                             errors: ["Unregistered": 1]))
        #expect(stats["by_service"]?.objectValue?["webpush"] == Self.service(sent: 0, accepted: 0, failed: 0))
        // Ten one-minute buckets: the rows' minute stays in the window when the clock has
        // crossed into the next minute since they were written (one bucket would be only the current minute).
        let series = try Self.object(await app.request(.get, "/stats/throughput", headers: Self.org,
                                                       query: ["window": "10m", "step": "1m"]))
        #expect(series["totals"] == ["accepted": 11, "failed": 2])
        #expect(series["by_service"] == [
            "apns": ["accepted": 7, "failed": 1], "fcm": ["accepted": 1, "failed": 1], "webpush": ["accepted": 3, "failed": 0],
        ])
        let other = try Self.object(await app.request(.get, "/apps/\(b)/stats", headers: Self.org))
        #expect(other["sent"] == 3)
    }
}
