import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `GET /notifications/{id}/deliveries` against the APNs simulator: one record per device with
/// what APNs answered, the recipients still queued as `remaining`, filters, keyset pages, and the
/// same keys, apps and tenants as `GET /notifications/{id}`.
@Suite struct NotificationDeliveriesTests {
    static let accepted = [String(repeating: "a1", count: 32), String(repeating: "a2", count: 32)]
    static let dead = "dead" + String(repeating: "0", count: 60)
    /// Answered 500 InternalServerError by the simulator: retried, so queued after the first try.
    static let failing = "5000" + String(repeating: "0", count: 60)

    /// Retries wait a minute, so a failed push stays queued until a test makes it due.
    static func slowRetries() -> DeliveryEngine.Settings {
        var settings = DeliveryHarness.quickSettings()
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 60, maxDelay: 60)
        return settings
    }

    static func send(_ harness: DeliveryHarness, _ app: CreatedApp? = nil) async throws -> String {
        let app = app ?? harness.created
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
            "app_id": .string(app.app.id), "included_segments": ["Subscribed Users"], "contents": ["en": "Hello"],
        ])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "send: \(response.text)")
    }

    static func deliveries(_ harness: DeliveryHarness, _ messageID: String, _ query: [String: String] = [:],
                           app: CreatedApp? = nil, key: String? = nil) async -> TestResponse {
        let app = app ?? harness.created
        return await harness.app.request(.get, "/notifications/\(messageID)/deliveries",
                                         headers: .restKey(key ?? app.restKey),
                                         query: ["app_id": app.app.id].merging(query) { $1 })
    }

    static func records(_ response: TestResponse) throws -> [JSONObject] {
        try #require(response.status == 200, "\(response.status) \(response.text)")
        return try #require(response.json?.objectValue?["deliveries"]?.arrayValue).compactMap(\.objectValue)
    }

    static func subscriptions(_ response: TestResponse) throws -> [String] {
        try records(response).compactMap { $0["subscription_id"]?.stringValue }
    }

    static func remaining(_ response: TestResponse) -> Int64? {
        response.json?.objectValue?["remaining"]?.intValue
    }

    static func error(_ message: String) -> JSONValue { ["errors": [.string(message)]] }

    // MARK: records

    @Test func eachDeviceHasOneRecordOfWhatAPNsAnsweredAndTheQueuedAreRemaining() async throws {
        let harness = try await DeliveryHarness.make(settings: Self.slowRetries())
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        var ids: [String: String] = [:]
        for token in Self.accepted + [Self.dead, Self.failing] {
            ids[token] = try await harness.app.insertSubscription(appID: appID, token: token)
        }
        let messageID = try await Self.send(harness)
        // Not expanded yet: nothing to show, and nothing counted.
        let before = await Self.deliveries(harness, messageID)
        #expect(before.json == ["deliveries": [], "next_cursor": nil, "remaining": 0])

        try await harness.drain()
        let started = Int64(Date().timeIntervalSince1970)
        let first = await Self.deliveries(harness, messageID)
        let records = try Self.records(first)
        #expect(records.count == 3)
        #expect(Self.remaining(first) == 1)
        #expect(first.json?.objectValue?["next_cursor"] == .null)
        let byDevice = Dictionary(uniqueKeysWithValues: records.map { ($0["subscription_id"]?.stringValue ?? "", $0) })
        #expect(Set(byDevice.keys) == Set([Self.accepted[0], Self.accepted[1], Self.dead].compactMap { ids[$0] }))
        let sent = Dictionary(uniqueKeysWithValues: harness.simulator.accepted().map { ($0.deviceToken, $0.apnsID.lowercased()) })
        for token in Self.accepted {
            let record = try #require(byDevice[ids[token] ?? ""])
            #expect(record["state"] == "accepted")
            #expect(record["token_kind"] == "device")
            #expect(record["platform"] == "ios")
            #expect(record["error_reason"] == .null)
            #expect(record["attempts"] == 1)
            #expect(record["live_activity_id"] == .null)
            #expect(record["clicked_at"] == .null)
            // The apns-id support can hand to Apple is the one APNs received.
            #expect(record["apns_id"]?.stringValue == sent[token])
            #expect(record["apns_status"] == 200)
            let finished = try #require(record["finished_at"]?.intValue)
            #expect(abs(finished - started) <= 120)
        }
        let dead = try #require(byDevice[ids[Self.dead] ?? ""])
        #expect(dead["state"] == "error")
        #expect(dead["error_reason"] == "Unregistered")
        #expect(dead["apns_status"] == 410)
        #expect(dead["apns_id"]?.stringValue?.count == 36)
        #expect(Set(records.map(Self.keys)) == [Self.fields])
        // Records are written without their apns-id (derived when read); a row from before
        // that holds one is shown with its own.
        let deadID = ids[Self.dead] ?? ""
        let stored = "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60"
        try await harness.app.services.database.query("""
            UPDATE delivery_rows SET apns_id = \(stored)::uuid WHERE message_id = \(messageID) AND subscription_id = \(deadID)
            """)
        let older = await Self.deliveries(harness, messageID, ["subscription_id": deadID])
        #expect(try Self.records(older).first?["apns_id"] == .string(stored))
        // The platform is the device's as it is now: an Android device's records say so, and a
        // deleted device's records have none.
        let androidID = try #require(ids[Self.accepted[1]])
        try await harness.app.services.database.query("UPDATE subscriptions SET platform = 'android' WHERE id = \(androidID)")
        let android = await Self.deliveries(harness, messageID, ["subscription_id": androidID])
        #expect(try Self.records(android).first?["platform"] == "android")
        #expect(try Self.records(await Self.deliveries(harness, messageID, ["subscription_id": ids[Self.accepted[0]] ?? ""]))
            .first?["platform"] == "ios")

        // "Not yet": the failing device has no record and is counted as remaining.
        let failing = try #require(ids[Self.failing])
        let waiting = await Self.deliveries(harness, messageID, ["subscription_id": failing])
        #expect(waiting.json == ["deliveries": [], "next_cursor": nil, "remaining": 1])
        #expect(Self.remaining(await Self.deliveries(harness, messageID, ["subscription_id": ids[Self.dead] ?? ""])) == 0)

        // Its retries come due and give up: now it has a record, and nothing remains.
        for _ in 0..<2 {
            try await harness.app.services.database.query("UPDATE delivery_jobs SET due_at = now() WHERE message_id = \(messageID)")
            try await harness.drain()
        }
        let final = await Self.deliveries(harness, messageID, ["subscription_id": failing])
        let gaveUp = try #require(try Self.records(final).first)
        #expect(try Self.records(final).count == 1)
        #expect(Self.remaining(final) == 0)
        #expect(gaveUp["state"] == "error")
        #expect(gaveUp["error_reason"] == "InternalServerError")
        #expect(gaveUp["apns_status"] == 500)
        #expect(gaveUp["attempts"] == 3)
    }

    static let fields: Set<String> = ["subscription_id", "platform", "token_kind", "state", "error_reason", "suppressed_reason",
                                      "carried_by", "apns_id", "apns_status", "fcm_message_name", "attempts", "live_activity_id",
                                      "finished_at", "clicked_at"]
    static func keys(_ record: JSONObject) -> Set<String> { Set(record.keys) }

    @Test func aClickShowsAsUnixSeconds() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.accepted[0])
        let messageID = try await Self.send(harness)
        try await harness.drain()
        // The accepted record is an element of its job's batch; its tap is a row of its own.
        try await harness.app.services.database.query("""
            UPDATE delivery_batches SET finished_at = to_timestamp(1799999990.25) WHERE message_id = \(messageID)
            """)
        try await harness.app.services.database.query("""
            INSERT INTO delivery_clicks (message_id, subscription_id, record_id, record_created_at, clicked_at)
            SELECT message_id, subscription_id, id, created_at, to_timestamp(1800000000.75) FROM deliveries
            WHERE message_id = \(messageID)
            """)
        let record = try #require(try Self.records(await Self.deliveries(harness, messageID)).first)
        #expect(record["subscription_id"]?.stringValue == subscription)
        #expect(record["clicked_at"] == 1_800_000_000)
        #expect(record["finished_at"] == 1_799_999_990)
    }

    // MARK: filters

    @Test func filtersBySubscriptionAndState() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let good = try await harness.app.insertSubscription(appID: appID, token: Self.accepted[0])
        let other = try await harness.app.insertSubscription(appID: appID, token: Self.accepted[1])
        let dead = try await harness.app.insertSubscription(appID: appID, token: Self.dead)
        let messageID = try await Self.send(harness)
        try await harness.drain()

        #expect(Set(try Self.subscriptions(await Self.deliveries(harness, messageID, ["state": "accepted"]))) == [good, other])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID, ["state": "error"])) == [dead])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID, ["state": "cancelled"])) == [])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID, ["state": "superseded"])) == [])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID, ["subscription_id": good])) == [good])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID,
                                                            ["subscription_id": dead, "state": "error"])) == [dead])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID,
                                                            ["subscription_id": dead, "state": "accepted"])) == [])
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID, ["subscription_id": "sub_unknown"])) == [])
    }

    // MARK: pages

    @Test(arguments: [7, 5, 1])
    func pagesFollowTheCursorWithNoRecordTwiceAndNoneMissed(limit: Int) async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        try await harness.app.services.database.query("""
            INSERT INTO subscriptions (id, app_id, token, first_session_at, last_session_at)
            SELECT 'sub_' || lpad(g::text, 8, '0'), \(appID), lpad(to_hex(g), 64, '0'), now(), now()
            FROM generate_series(1, 25) AS g
            """)
        let messageID = try await Self.send(harness)
        try await harness.drain()

        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            var query = ["limit": String(limit)]
            if let cursor { query["cursor"] = cursor }
            let page = await Self.deliveries(harness, messageID, query)
            let records = try Self.subscriptions(page)
            #expect(records.count == min(limit, 25 - seen.count))
            seen += records
            cursor = page.json?.objectValue?["next_cursor"]?.stringValue
            pages += 1
            try #require(pages <= 26, "the cursor never ran out")
        } while cursor != nil
        #expect(pages == (25 + limit - 1) / limit)
        #expect(seen.count == 25)
        #expect(Set(seen).count == 25)
        let everything = await Self.deliveries(harness, messageID)
        #expect(try Self.subscriptions(everything) == seen, "pages in one listing's order")
        #expect(seen == seen.sorted(), "by device: the order of the index a tap reads")
        #expect(everything.json?.objectValue?["next_cursor"] == .null)
    }

    @Test func aCursorCarriesOverToAFilteredListing() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        for index in 0..<6 {
            let token = (index.isMultiple(of: 2) ? "dead" : "a1a1") + String(format: "%060x", index)
            try await harness.app.insertSubscription(appID: appID, token: token)
        }
        let messageID = try await Self.send(harness)
        try await harness.drain()
        let first = await Self.deliveries(harness, messageID, ["state": "error", "limit": "2"])
        #expect(try Self.records(first).count == 2)
        let cursor = try #require(first.json?.objectValue?["next_cursor"]?.stringValue)
        let second = await Self.deliveries(harness, messageID, ["state": "error", "limit": "2", "cursor": cursor])
        #expect(try Self.records(second).count == 1)
        #expect(second.json?.objectValue?["next_cursor"] == .null)
        let all = try Self.subscriptions(await Self.deliveries(harness, messageID, ["state": "error"]))
        #expect(try Self.subscriptions(first) + Self.subscriptions(second) == all)
    }

    // MARK: wrong input

    @Test func badParametersAre400sNamingThem() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.accepted[0])
        let messageID = try await Self.send(harness)
        let states = "state must be one of accepted, error, cancelled, superseded, suppressed"
        for (query, expected) in [
            (["state": "expired"], Self.error(states)),
            (["state": "Accepted"], Self.error(states)),
            (["limit": "0"], Self.error("limit must be an integer from 1 to 1000")),
            (["limit": "1001"], Self.error("limit must be an integer from 1 to 1000")),
            (["limit": "many"], Self.error("limit must be an integer from 1 to 1000")),
            (["cursor": "not-a-cursor"], Self.error("cursor is not valid")),
            (["cursor": ""], Self.error("cursor is not valid")),
            (["subscription_id": ""], Self.error("subscription_id must not be empty")),
            (["state": "queued", "cursor": "x"], ["errors": [.string(states), "cursor is not valid"]]),
        ] as [([String: String], JSONValue)] {
            let response = await Self.deliveries(harness, messageID, query)
            #expect(response.status == 400, "\(query)")
            #expect(response.json == expected, "\(query)")
        }
        let noApp = await harness.app.request(.get, "/notifications/\(messageID)/deliveries",
                                              headers: .restKey(harness.created.restKey))
        #expect(noApp.status == 400)
        #expect(noApp.json == Self.error("app_id is required"))
        // A valid cursor of a record that does not exist is simply an empty page.
        let past = await Self.deliveries(harness, messageID,
                                         ["cursor": DeliveryPosition(subscriptionID: "sub_zzzz", id: Int64.max).cursor])
        #expect(past.json == ["deliveries": [], "next_cursor": nil, "remaining": 0])
    }

    // MARK: apps and keys

    /// Every refusal is the one `GET /notifications/{id}` gives for the same app, key and id.
    @Test func anotherAppsMessageOrKeyIsRefusedExactlyLikeTheView() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let mine = harness.created
        let theirs = try await harness.app.createApp()
        try await harness.app.insertSubscription(appID: mine.app.id, token: Self.accepted[0])
        let messageID = try await Self.send(harness)
        try await harness.drain()
        #expect(try Self.records(await Self.deliveries(harness, messageID)).count == 1)

        let cases: [(appID: String, key: String?, id: String, status: Int, body: JSONValue)] = [
            // Their key, their app: my message is as missing as an unknown one.
            (theirs.app.id, theirs.restKey, messageID, 404, Self.error("notification '\(messageID)' not found")),
            (mine.app.id, mine.restKey, "msg_unknown", 404, Self.error("notification 'msg_unknown' not found")),
            // Their key on my app, or no key: not let in.
            (mine.app.id, theirs.restKey, messageID, 401, Self.error(Authentication.badRESTKey)),
            (mine.app.id, nil, messageID, 401, Self.error(Authentication.badRESTKey)),
            ("app_unknown", mine.restKey, messageID, 404, Self.error("unknown app 'app_unknown'")),
        ]
        for (appID, key, id, status, body) in cases {
            let headers: HTTPHeaders = key.map(HTTPHeaders.restKey) ?? [:]
            let deliveries = await harness.app.request(.get, "/notifications/\(id)/deliveries", headers: headers,
                                                       query: ["app_id": appID, "state": "accepted"])
            let view = await harness.app.request(.get, "/notifications/\(id)", headers: headers, query: ["app_id": appID])
            #expect(deliveries.status == status, "\(appID) \(id)")
            #expect(deliveries.json == body, "\(appID) \(id)")
            #expect(view.status == status, "\(appID) \(id)")
            #expect(view.json == body, "\(appID) \(id)")
        }
    }

    // MARK: tenants

    @Test func aSharedDemoTenantReadsOnlyItsOwnMessagesRecords() async throws {
        let harness = try await DeliveryHarness.make(configure: { $0.organizationAPIKey = AppsTestSupport.organizationKey })
        defer { Task { await harness.shutdown() } }
        // A shared demo app whose credentials the simulator knows.
        let shared = try await harness.app.createApp(AppSettings(
            name: "Shared demo", apnsP8: harness.p8, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
            apnsBundleID: DeliveryHarness.bundleID, sharedDemo: true))
        let demo = SharedDemo(app: harness.app, shared: shared)
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        let acmeDevice = try await demo.linkedDevice(1, to: acme)
        _ = try await demo.linkedDevice(2, to: globex)

        var asAcme = shared
        asAcme.restKey = acme.restKey
        let messageID = try await Self.send(harness, asAcme)
        try await harness.drain()
        let own = await Self.deliveries(harness, messageID, app: shared, key: acme.restKey)
        #expect(try Self.subscriptions(own) == [acmeDevice.subscriptionID])
        // The app's own key sees every tenant's messages, as the view does.
        #expect(try Self.subscriptions(await Self.deliveries(harness, messageID, app: shared)) == [acmeDevice.subscriptionID])

        let missing = Self.error("notification '\(messageID)' not found")
        for query in [[:], ["subscription_id": acmeDevice.subscriptionID], ["state": "accepted"],
                      ["cursor": DeliveryPosition(subscriptionID: acmeDevice.subscriptionID, id: 0).cursor]] as [[String: String]] {
            let foreign = await Self.deliveries(harness, messageID, query, app: shared, key: globex.restKey)
            #expect(foreign.status == 404, "\(query)")
            #expect(foreign.json == missing, "\(query)")
        }
        let unknown = await Self.deliveries(harness, "msg_unknown", app: shared, key: globex.restKey)
        #expect(unknown.json == Self.error("notification 'msg_unknown' not found"))
    }
}
