import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// One `POST /notifications` reaches Apple and Android devices alike; `isIos: false` leaves the
/// Apple ones out, `isAndroid: false` the Android ones, both leave nobody. Checked on the delivery
/// jobs a send writes (immediately for a named audience, by the expansion for a segment) and on
/// the estimate, with a second app whose devices share the user ids and are never reached.
@Suite struct AndroidAudienceTests {
    /// Two iPhones and two Android phones in one app, one of each in another, same external ids.
    struct Fixture {
        var app: TestApp
        var created: CreatedApp
        var other: CreatedApp
        var apple: [String]
        var android: [String]
        var otherIDs: [String]

        static func make() async throws -> Fixture {
            let app = try await TestApp.make()
            let created = try await app.createApp()
            let other = try await app.createApp()
            var apple: [String] = []
            var android: [String] = []
            for index in 1...2 {
                apple.append(try await app.deviceID(created, ["token": .string(Registry.token(index)),
                                                               "external_id": .string("u-\(index)")]))
                android.append(try await app.deviceID(created, ["token": .string("fcm:Tok-\(index)"), "platform": "android",
                                                                 "external_id": .string("u-\(index)")]))
            }
            let otherIDs = [
                try await app.deviceID(other, ["token": .string(Registry.token(1)), "external_id": "u-1"]),
                try await app.deviceID(other, ["token": "fcm:Tok-1", "platform": "android", "external_id": "u-1"]),
            ]
            return Fixture(app: app, created: created, other: other, apple: apple.sorted(), android: android.sorted(),
                           otherIDs: otherIDs)
        }

        var everyone: [String] { (apple + android).sorted() }

        func send(_ fields: JSONObject, restKey: String? = nil) async -> TestResponse {
            var body: JSONObject = ["app_id": .string(created.app.id), "contents": ["en": "Hello"]]
            for (key, value) in fields { body[key] = value }
            return await app.request(.post, "/notifications", headers: .restKey(restKey ?? created.restKey), json: .object(body))
        }

        func estimate(_ fields: JSONObject) async -> Int64? {
            var body: JSONObject = ["app_id": .string(created.app.id)]
            for (key, value) in fields { body[key] = value }
            let response = await app.request(.post, "/notifications/count-unsaved", headers: .restKey(created.restKey),
                                             json: .object(body))
            return response.json?.objectValue?["count"]?.intValue
        }

        /// The subscriptions a message's delivery jobs hold, sorted.
        func recipients(_ response: TestResponse) async throws -> [String] {
            let id = try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
            try #require(!id.isEmpty, "\(response.text)")
            return try await app.services.database.query("""
                SELECT unnest(subscription_ids) AS id FROM delivery_jobs WHERE message_id = \(id) ORDER BY 1
                """).map { try $0.decode("id", as: String.self) }
        }

        /// Expands every pending message (segment sends wait for the workers, which do not run here).
        func expandAll() async throws {
            while try await app.services.database.transaction({ connection in
                try NotificationExpansion.expandNextPage(in: connection) != .idle
            }) {}
        }
    }

    static let users: JSONObject = ["include_aliases": ["external_id": ["u-1", "u-2"]], "target_channel": "push"]
    static let nobody: JSONValue = ["id": "", "errors": ["All included players are not subscribed"]]

    @Test func aNamedAudienceReachesBothPlatformsUnlessOneIsSwitchedOff() async throws {
        let fixture = try await Fixture.make()
        #expect(try await fixture.recipients(fixture.send(Self.users)) == fixture.everyone)
        var noAndroid = Self.users
        noAndroid["isAndroid"] = false
        #expect(try await fixture.recipients(fixture.send(noAndroid)) == fixture.apple)
        var noApple = Self.users
        noApple["isIos"] = false
        noApple["isAndroid"] = true
        let androidOnly = await fixture.send(noApple)
        #expect(androidOnly.headers["OpenPush-Ignored-Fields"] == nil)
        #expect(try await fixture.recipients(androidOnly) == fixture.android)
        var neither = Self.users
        neither["isIos"] = false
        neither["isAndroid"] = false
        let none = await fixture.send(neither)
        #expect(none.status == 200)
        #expect(none.json == Self.nobody)

        // The other app's devices, same users, were never queued.
        let reached = try await fixture.app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs, unnest(subscription_ids) AS s(id) WHERE s.id = ANY(\(fixture.otherIDs)::text[])
            """)[0].decode("n", as: Int.self)
        #expect(reached == 0)
        // Another app's key is refused, as ever.
        let crossed = await fixture.send(Self.users, restKey: fixture.other.restKey)
        #expect(crossed.status == 401)
    }

    @Test func aSegmentSendIsExpandedWithTheStoredPlatformSwitches() async throws {
        let fixture = try await Fixture.make()
        let everyone = await fixture.send(["included_segments": ["Subscribed Users"]])
        let appleOnly = await fixture.send(["included_segments": ["Subscribed Users"], "isAndroid": false])
        let androidOnly = await fixture.send(["included_segments": ["Subscribed Users"], "isIos": false])
        try await fixture.expandAll()
        #expect(try await fixture.recipients(everyone) == fixture.everyone)
        #expect(try await fixture.recipients(appleOnly) == fixture.apple)
        #expect(try await fixture.recipients(androidOnly) == fixture.android)
        var totals: [Int] = []
        for response in [everyone, appleOnly, androidOnly] {
            let id = try #require(response.json?.objectValue?["id"]?.stringValue)
            totals.append(try await fixture.app.services.database.query("SELECT audience_total FROM messages WHERE id = \(id)")[0]
                .decode("audience_total", as: Int.self))
        }
        #expect(totals == [4, 2, 2])

        // An audience of iPhones alone, with Apple left out, is nobody.
        let onlyApple = await fixture.send(["include_subscription_ids": .array(fixture.apple.map(JSONValue.string)),
                                            "isIos": false])
        #expect(onlyApple.json == Self.nobody)
    }

    @Test func theEstimateCountsThePlatformsASendWouldReach() async throws {
        let fixture = try await Fixture.make()
        let segment: JSONObject = ["included_segments": ["Subscribed Users"]]
        #expect(await fixture.estimate(segment) == 4)
        var noAndroid = segment
        noAndroid["isAndroid"] = false
        #expect(await fixture.estimate(noAndroid) == 2)
        var noApple = segment
        noApple["isIos"] = false
        #expect(await fixture.estimate(noApple) == 2)
        noApple["isAndroid"] = false
        #expect(await fixture.estimate(noApple) == 0)
        // A whole notification body is estimated the same way.
        var body = Self.users
        body["contents"] = ["en": "x"]
        body["isIos"] = false
        #expect(await fixture.estimate(body) == 2)
    }
}
