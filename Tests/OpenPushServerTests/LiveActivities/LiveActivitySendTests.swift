import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// "Part 2 — Server send routes" of the contract, through the application.
@Suite struct LiveActivitySendTests {
    static let type = "DeliveryAttributes"
    static let hour = 3600.0

    struct Fixture: Sendable {
        var app: TestApp
        var clock: ManualClock
        var created: CreatedApp
        var headers: HTTPHeaders { .restKey(created.restKey) }
        var appID: String { created.app.id }
        var startPath: String { "/apps/\(appID)/activities/activity/\(LiveActivitySendTests.type)" }
        func updatePath(_ activityID: String) -> String { "/apps/\(appID)/live_activities/\(activityID)/notifications" }

        static func make() async throws -> Fixture {
            let clock = ManualClock()
            let app = try await TestApp.make(now: clock.source)
            return Fixture(app: app, clock: clock, created: try await app.createApp())
        }

        /// `count` devices with external ids `u-0…`, each holding a push-to-start token for the type;
        /// device `i` was last active `i` seconds ago.
        func insertStartableDevices(_ count: Int, type: String = LiveActivitySendTests.type, prefix: String = "u") async throws {
            let now = clock.now()
            try await app.seed { connection in
                try connection.query("""
                    INSERT INTO subscriptions (id, app_id, token, external_id, first_session_at, last_session_at)
                    SELECT 'sub_' || \(prefix) || '_' || lpad(i::text, 6, '0'), \(appID), md5(\(prefix) || i::text), \(prefix) || '-' || i,
                           to_timestamp(\(now)::float8 - i), to_timestamp(\(now)::float8 - i)
                    FROM generate_series(0, \(count - 1)) AS i
                    """)
                try connection.query("""
                    INSERT INTO push_to_start_tokens (id, app_id, subscription_id, activity_type, token)
                    SELECT 'pts_' || \(prefix) || '_' || i, \(appID), 'sub_' || \(prefix) || '_' || lpad(i::text, 6, '0'), \(type),
                           md5('pts' || \(prefix) || i::text) || md5(\(prefix) || i::text)
                    FROM generate_series(0, \(count - 1)) AS i
                    """)
            }
        }

        func start(_ body: JSONObject, headers extra: HTTPHeaders? = nil) async -> TestResponse {
            await app.request(.post, startPath, headers: extra ?? headers, json: .object(body))
        }

        func count(_ sql: PostgresQuery) async throws -> Int {
            try await app.services.database.query(sql).firstRow().decode("n")
        }
    }

    static func startBody(_ targeting: JSONObject = ["include_aliases": ["external_id": ["u-0"]]]) -> JSONObject {
        var body: JSONObject = [
            "event": "start",
            "activity_id": "order-58213",
            "name": "Order 58213 out for delivery",
            "event_attributes": ["orderNumber": "58213", "storeName": "Bridge Road"],
            "event_updates": ["status": "out_for_delivery", "etaMinutes": 24],
            "headings": ["en": "On the way"],
            "contents": ["en": "Arriving in about 24 minutes"],
            "priority": 10,
            "ios_relevance_score": 0.8,
            "stale_date": 1_756_627_200,
        ]
        for (key, value) in targeting { body[key] = value }
        return body
    }

    // MARK: start

    @Test func startQueuesOneDeliveryPerStartableDevice() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(3)
        let response = await fixture.start(Self.startBody(["include_aliases": ["external_id": ["u-0", "u-2", "nobody"]]]))
        #expect(response.status == 201)
        let messageID = try #require(response.json?.objectValue?["notification_id"]?.stringValue)
        #expect(response.json?.objectValue?.keys == ["notification_id"])
        #expect(Identifier.isWellFormed(messageID, prefix: "msg"))
        #expect(response.headers["OpenPush-Audience-Total"] == "2")
        #expect(response.headers["OpenPush-Audience-Sent"] == "2")
        let rows = try await fixture.app.services.database.query("""
            SELECT q.subscription_id, q.token_kind, q.token, p.token AS expected, q.apns_id::text AS apns_id
            FROM \(TestApp.queuedRecipients) JOIN push_to_start_tokens p ON p.subscription_id = q.subscription_id
            WHERE q.message_id = \(messageID) ORDER BY q.subscription_id
            """)
        #expect(try rows.map { try $0.decode("subscription_id", as: String.self) } == ["sub_u_000000", "sub_u_000002"])
        for row in rows {
            #expect(try row.decode("token_kind", as: String.self) == "push_to_start")
            #expect(try row.decode("token", as: String.self) == row.decode("expected", as: String.self))
        }
        #expect(Set(try rows.map { try $0.decode("apns_id", as: String.self) }).count == 2)
        let message = try await fixture.app.services.database.query("""
            SELECT kind, event, name, activity_type, activity_id, audience_total, truncated FROM messages WHERE id = \(messageID)
            """).firstRow()
        #expect(try message.decode("event", as: String.self) == "start")
        #expect(try message.decode("activity_type", as: String.self) == Self.type)
        #expect(try message.decode("activity_id", as: String.self) == "order-58213")
        #expect(try message.decode("audience_total", as: Int.self) == 2)
        #expect(try message.decode("truncated", as: Bool.self) == false)
    }

    @Test func everyAuthorizationSpellingWorksAndOthersAre401() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(1)
        let key = fixture.created.restKey
        for headers: HTTPHeaders in [["Authorization": "Key \(key)"], ["Authorization": "Basic \(key)"],
                                     ["Authorization": "Bearer \(key)"], ["Authorization": key], ["X-OP-API-Key": key]] {
            #expect(await fixture.start(Self.startBody(), headers: headers).status == 201)
        }
        let basic = "Basic " + Data("user:\(key)".utf8).base64EncodedString()
        let other = try await fixture.app.createApp()
        for headers: HTTPHeaders in [[:], ["Authorization": basic], ["Authorization": "Key nope"], .restKey(other.restKey)] {
            let response = await fixture.start(Self.startBody(), headers: headers)
            #expect(response.status == 401)
            #expect(response.json == ["errors": ["bad API key — send `Authorization: Key <your app's REST API key>` or X-OP-API-Key"]])
        }
        let unknown = await fixture.app.request(.post, "/apps/app_3f9c/activities/activity/T", headers: fixture.headers,
                                                json: .object(Self.startBody()))
        #expect(unknown.status == 404)
        #expect(unknown.json == ["errors": ["unknown app 'app_3f9c'"]])
    }

    @Test func everyStartErrorRowThroughHTTP() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(1)
        let cases: [(JSONObject, String)] = [
            (["event": "update"], #"event must be "start" on this route"#),
            (["activity_id": ""], "activity_id is required"),
            (["activity_id": "a/b"], "activity_id cannot contain '/'"),
            (["event_updates": [:]], "event_updates is required and must be a non-empty JSON object"),
            (["event_attributes": [:]], "event_attributes is required and must be a non-empty JSON object"),
            (["contents": ["fr": "x"]], #"contents must include an "en" entry"#),
            (["name": .string(String(repeating: "x", count: 129))], "name must be 128 characters or fewer"),
            (["stale_date": 1_756_627_200_000], "stale_date must be a unix timestamp in seconds, not milliseconds"),
            (["priority": 1], "priority must be 5 or 10"),
            (["ios_relevance_score": 2], "ios_relevance_score must be between 0 and 1"),
            (["dismissal_date": 1_756_601_000], "dismissal_date is not supported on a start"),
            (["include_subscription_ids": ["sub_x"]], "use exactly one targeting method"),
        ]
        for (change, message) in cases {
            var body = Self.startBody()
            for (key, value) in change { body[key] = value }
            let response = await fixture.start(body)
            #expect(response.status == 400, "\(change)")
            #expect(response.json == ["errors": [.string(message)]], "\(change)")
        }
        for raw in ["not json", "[1]"] {
            let response = await fixture.app.request(.post, fixture.startPath, headers: fixture.headers, body: Array(raw.utf8))
            #expect(response.status == 400)
            #expect(response.json == ["errors": ["the request body must be a JSON object"]])
        }
        let nobody = await fixture.app.request(.post, "/apps/\(fixture.appID)/activities/activity/OtherAttributes",
                                               headers: fixture.headers, json: .object(Self.startBody()))
        #expect(nobody.status == 400)
        #expect(nobody.json == ["errors": ["no device has registered a push-to-start token for activity_type 'OtherAttributes'"]])
        #expect(try await fixture.count("SELECT count(*)::int AS n FROM messages") == 0)
    }

    @Test func eachTargetingModeSelectsTheRightDevices() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(4)
        try await fixture.app.services.database.query("""
            UPDATE subscriptions SET tags = '{"tier": "gold"}'::jsonb WHERE id IN ('sub_u_000001', 'sub_u_000003')
            """)
        let user = await fixture.app.request(.post, "/apps/\(fixture.appID)/users", headers: fixture.headers,
                                             json: ["identity": ["external_id": "u-2", "crm_id": "c-2"]])
        #expect(user.status == 201 || user.status == 200)
        let segment = await fixture.app.request(.post, "/apps/\(fixture.appID)/segments", headers: fixture.headers,
                                                json: ["name": "Gold", "filters": [["field": "tag", "key": "tier", "relation": "=", "value": "gold"]]])
        #expect(segment.status == 201)
        let cases: [(JSONObject, Int)] = [
            (["include_aliases": ["external_id": ["u-0", "u-1"]]], 2),
            (["include_aliases": ["crm_id": ["c-2"]]], 1),
            (["include_aliases": ["subscription_id": ["sub_u_000003"]]], 1),
            (["include_subscription_ids": ["sub_u_000000", "sub_u_000001", "sub_u_000002"]], 3),
            (["included_segments": ["Subscribed Users"]], 4),
            (["included_segments": ["Subscribed Users"], "excluded_segments": ["Gold"]], 2),
            (["included_segments": ["Gold"]], 2),
            (["filters": [["field": "tag", "key": "tier", "op": "=", "value": "gold"], ["operator": "OR"],
                          ["field": "tag", "key": "tier", "relation": "not_exists"]]], 4),
        ]
        for (targeting, expected) in cases {
            let response = await fixture.start(Self.startBody(targeting))
            #expect(response.status == 201, "\(targeting)")
            #expect(response.headers["OpenPush-Audience-Total"] == String(expected), "\(targeting)")
        }
        let unknownSegment = await fixture.start(Self.startBody(["included_segments": ["Nope"]]))
        #expect(unknownSegment.status == 400)
        #expect(unknownSegment.json == ["errors": ["segment 'Nope' not found"]])
    }

    @Test func aboveTwoThousandDevicesTheMostRecentlyActiveAreTaken() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(2500)
        let response = await fixture.start(Self.startBody(["included_segments": ["Subscribed Users"]]))
        #expect(response.status == 201)
        #expect(response.headers["OpenPush-Audience-Total"] == "2500")
        #expect(response.headers["OpenPush-Audience-Sent"] == "2000")
        let messageID = try #require(response.json?.objectValue?["notification_id"]?.stringValue)
        #expect(try await fixture.count("SELECT count(*)::int AS n FROM \(TestApp.queuedRecipients) WHERE message_id = \(messageID)") == 2000)
        // Device i was last active i seconds ago: the 2000 most recent are 0…1999.
        #expect(try await fixture.count("""
            SELECT count(*)::int AS n FROM \(TestApp.queuedRecipients) WHERE message_id = \(messageID) AND subscription_id >= 'sub_u_002000'
            """) == 0)
        let truncated = try await fixture.app.services.database.query("SELECT truncated FROM messages WHERE id = \(messageID)")
        #expect(try truncated[0].decode("truncated", as: Bool.self))
    }

    @Test func moreThanTwentyThousandIDsAre400() async throws {
        let fixture = try await Fixture.make()
        let ids = JSONValue.array((0...20_000).map { .string("sub_\($0)") })
        let response = await fixture.start(Self.startBody(["include_aliases": nil, "include_subscription_ids": ids]))
        #expect(response.status == 400)
        #expect(response.json == ["errors": ["include_subscription_ids: at most 20000 ids"]])
    }

    // MARK: idempotency

    @Test func aRepeatedIdempotencyKeyReplaysTheFirstAnswer() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(2)
        var body = Self.startBody()
        body["idempotency_key"] = "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0"
        let first = await fixture.start(body)
        #expect(first.status == 201)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        body["name"] = "changed"
        let second = await fixture.start(body)
        #expect(second.status == 201)
        #expect(second.json == first.json)
        #expect(second.headers["Idempotent-Replayed"] == "true")
        #expect(try await fixture.count("SELECT count(*)::int AS n FROM messages") == 1)
        #expect(try await fixture.count("SELECT count(*)::int AS n FROM \(TestApp.queuedRecipients)") == 1)
        body["idempotency_key"] = "not-a-uuid"
        let bad = await fixture.start(body)
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["idempotency_key must be a UUID"]])
    }

    @Test func racingRequestsWithOneKeyMakeOneMessage() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(1)
        var body = Self.startBody()
        body["idempotency_key"] = "7d1e1c0e-2b8a-4c39-9a53-3c1f9e0b5a11"
        let raced = body
        let responses = await withTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<10 { group.addTask { await fixture.start(raced) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.status == 201 })
        #expect(Set(responses.compactMap { $0.json?.objectValue?["notification_id"]?.stringValue }).count == 1)
        #expect(responses.filter { $0.headers["Idempotent-Replayed"] == "true" }.count == 9)
        #expect(try await fixture.count("SELECT count(*)::int AS n FROM messages") == 1)
    }

    @Test func expiredKeysArePruned() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(1)
        var body = Self.startBody()
        body["idempotency_key"] = "11111111-2222-3333-4444-555555555555"
        #expect(await fixture.start(body).status == 201)
        fixture.clock.advance(by: 31 * 24 * Self.hour)
        let pruned = try await IdempotencyStore.prune(scope: IdempotencyStore.liveActivityStart,
                                                      olderThan: fixture.clock.now() - IdempotencyStore.liveActivityRetention,
                                                      in: fixture.app.services.database)
        #expect(pruned == 1)
        let again = await fixture.start(body)
        #expect(again.headers["Idempotent-Replayed"] == nil)
        #expect(try await fixture.count("SELECT count(*)::int AS n FROM messages") == 2)
    }

    // MARK: rate limit

    @Test func theSixtyFirstRequestInSixtySecondsIs429() async throws {
        let fixture = try await Fixture.make()
        for index in 0..<60 {
            // Bad bodies count too: the limit counts every authenticated request.
            let path = index % 2 == 0 ? fixture.startPath : fixture.updatePath("x")
            #expect(await fixture.app.request(.post, path, headers: fixture.headers, json: [:]).status == 400)
        }
        let limited = await fixture.start(Self.startBody())
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "60")
        #expect(limited.json == ["errors": ["too many Live Activity requests for this app"]])
        let other = try await fixture.app.createApp()
        #expect(await fixture.app.request(.post, "/apps/\(other.app.id)/activities/activity/T", headers: .restKey(other.restKey),
                                          json: [:]).status == 400)
        fixture.clock.advance(by: 60)
        #expect(await fixture.start(Self.startBody()).status == 400)
    }

    // MARK: update and end

    /// Registers `activityID` on `count` new devices (with `type`), started `age` seconds ago.
    static func openActivity(_ fixture: Fixture, _ activityID: String, devices count: Int = 1, type: String? = "DeliveryAttributes",
                             age: Double = 0, tokenOffset: Int = 0) async throws {
        for index in 0..<count {
            let token = String(format: "%064x", tokenOffset + index + 1)
            let subscription = try await fixture.app.insertSubscription(appID: fixture.appID, token: token)
            let now = fixture.clock.now()
            try await fixture.app.services.database.transaction { connection in
                let row = try LiveActivityStore.register(appID: fixture.appID, subscriptionID: subscription, activityID: activityID,
                                                         activityType: type, updateToken: String(repeating: "ab", count: 32),
                                                         requestedStaleAt: nil, now: now - age, in: connection)
                _ = row
            }
        }
    }

    static let updateBody: JSONObject = [
        "event": "update", "name": "Order 58213 ETA 8 min", "event_updates": ["status": "nearby", "etaMinutes": 8],
        "headings": ["en": "Almost there"], "contents": ["en": "Arriving in about 8 minutes"], "priority": 5,
    ]

    static func endBody() -> JSONObject {
        var body = updateBody
        body["event"] = "end"
        body["dismissal_date"] = 1_756_601_000
        return body
    }

    @Test func updateReachesEveryOpenHolder() async throws {
        let fixture = try await Fixture.make()
        try await Self.openActivity(fixture, "order-58213", devices: 3)
        let response = await fixture.app.request(.post, fixture.updatePath("order-58213"), headers: fixture.headers,
                                                 json: .object(Self.updateBody))
        #expect(response.status == 201)
        let messageID = try #require(response.json?.objectValue?["id"]?.stringValue)
        #expect(response.json?.objectValue?.keys == ["id"])
        #expect(try await fixture.count("""
            SELECT count(*)::int AS n FROM \(TestApp.queuedRecipients)
            WHERE message_id = \(messageID) AND token_kind = 'update' AND live_activity_id IS NOT NULL
            """) == 3)
    }

    @Test func theWindowDecidesWhoIsSelected() async throws {
        let fixture = try await Fixture.make()
        try await Self.openActivity(fixture, "a", age: 7 * Self.hour + 59 * 60, tokenOffset: 0)
        try await Self.openActivity(fixture, "b", age: 8 * Self.hour + 60, tokenOffset: 10)
        try await Self.openActivity(fixture, "c", age: 11 * Self.hour + 59 * 60, tokenOffset: 20)
        try await Self.openActivity(fixture, "d", age: 12 * Self.hour + 60, tokenOffset: 30)
        let expectations: [(String, JSONObject, Int)] = [
            ("a", Self.updateBody, 201), ("b", Self.updateBody, 404),
            ("c", Self.endBody(), 201), ("d", Self.endBody(), 404),
        ]
        for (activityID, body, status) in expectations {
            let response = await fixture.app.request(.post, fixture.updatePath(activityID), headers: fixture.headers, json: .object(body))
            #expect(response.status == status, "\(activityID)")
            if status == 404 {
                #expect(response.json == ["errors": [.string(SendMessages.nothingOpen)]])
            }
        }
    }

    @Test func anEndedActivityCanNeverBeUpdatedAgain() async throws {
        let fixture = try await Fixture.make()
        try await Self.openActivity(fixture, "order-58213", devices: 2)
        let end = await fixture.app.request(.post, fixture.updatePath("order-58213"), headers: fixture.headers, json: .object(Self.endBody()))
        #expect(end.status == 201)
        #expect(try await fixture.count("""
            SELECT count(*)::int AS n FROM live_activities WHERE ended_reason = 'remote'
            """) == 2)
        let update = await fixture.app.request(.post, fixture.updatePath("order-58213"), headers: fixture.headers,
                                               json: .object(Self.updateBody))
        #expect(update.status == 404)
        #expect(update.json == ["errors": ["no live activity with that id is open on this app — an activity that has ended can never be updated again"]])
    }

    @Test func updateErrorRows() async throws {
        let fixture = try await Fixture.make()
        try await Self.openActivity(fixture, "mixed", devices: 1, type: "A", tokenOffset: 0)
        try await Self.openActivity(fixture, "mixed", devices: 1, type: "B", tokenOffset: 5)
        let mixed = await fixture.app.request(.post, fixture.updatePath("mixed"), headers: fixture.headers, json: .object(Self.updateBody))
        #expect(mixed.status == 400)
        #expect(mixed.json == ["errors": ["the selected activity_id is registered with multiple activity types"]])
        let cases: [(JSONObject, String)] = [
            (["event": "start"], #"event must be "update" or "end" on this route"#),
            (["event_updates": nil], "event_updates is required and must be a non-empty JSON object"),
            (["dismissal_date": 1_756_601_000], "dismissal_date is supported only on an end"),
            (["headings": ["fr": "x"]], #"headings must include an "en" entry"#),
            (["idempotency_key": "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0"], "unknown field 'idempotency_key'"),
        ]
        for (change, message) in cases {
            var body = Self.updateBody
            for (key, value) in change { body[key] = value }
            let response = await fixture.app.request(.post, fixture.updatePath("mixed"), headers: fixture.headers, json: .object(body))
            #expect(response.status == 400, "\(change)")
            #expect(response.json == ["errors": [.string(message)]], "\(change)")
        }
        let crossed = await fixture.app.request(.post, fixture.updatePath("mixed"), headers: .restKey(try await fixture.app.createApp().restKey),
                                                json: .object(Self.updateBody))
        #expect(crossed.status == 401)
    }

    // MARK: the message view

    @Test func theMessageViewCountsDeliveries() async throws {
        let fixture = try await Fixture.make()
        try await fixture.insertStartableDevices(3)
        let response = await fixture.start(Self.startBody(["included_segments": ["Subscribed Users"]]))
        let messageID = try #require(response.json?.objectValue?["notification_id"]?.stringValue)
        // A worker's attempt: one accepted, one dead token, one held back (still remaining).
        let job = try #require(try await fixture.app.services.database.transaction {
            try DeliveryQueue.claim(worker: "test", appCap: 10, in: $0)
        })
        let bySubscription = Dictionary(uniqueKeysWithValues: job.recipients.map { ($0.subscriptionID, $0) })
        var completion = DeliveryQueue.Completion()
        completion.records = [DeliveryRecord(job: job, recipient: try #require(bySubscription["sub_u_000000"]), state: .accepted,
                                             service: .apns),
                              DeliveryRecord(job: job, recipient: try #require(bySubscription["sub_u_000001"]), state: .error,
                                             service: .apns, reason: "BadDeviceToken")]
        completion.held = [try #require(bySubscription["sub_u_000002"])]
        let outcome = completion
        _ = try await fixture.app.services.database.transaction { try DeliveryQueue.complete(job, worker: "test", with: outcome, in: $0) }
        let view = await fixture.app.request(.get, "/notifications/\(messageID)", headers: fixture.headers, query: ["app_id": fixture.appID])
        #expect(view.status == 200)
        let body = try #require(view.json?.objectValue)
        #expect(body["id"] == .string(messageID))
        #expect(body["successful"] == 1)
        #expect(body["failed"] == 1)
        #expect(body["errored"] == 0)
        #expect(body["remaining"] == 1)
        #expect(body["completed_at"] == .null)
        #expect(body["audience_total"] == 3)
        #expect(body["truncated"] == false)
        #expect(body["errors_by_reason"] == ["BadDeviceToken": 1])
        #expect(body["headings"] == ["en": "On the way"])
        let other = try await fixture.app.createApp()
        let crossed = await fixture.app.request(.get, "/notifications/\(messageID)", headers: .restKey(other.restKey),
                                                query: ["app_id": other.app.id])
        #expect(crossed.status == 404)
        #expect(await fixture.app.request(.get, "/notifications/\(messageID)", headers: fixture.headers).status == 400)
    }
}
