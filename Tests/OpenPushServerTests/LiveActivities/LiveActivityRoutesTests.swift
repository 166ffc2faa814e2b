import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// "Part 1 — Native device routes" of the contract: every documented status and body.
@Suite struct LiveActivityRoutesTests {
    static let deviceToken = "9f8c1d0a4b7e2f36c5108ad9b3e7f21c4a6d90e8b1f27c34a5d6e0f81b2c3d4e"
    static let otherDeviceToken = "0000000000000000000000000000000000000000000000000000000000000001"
    static let updateToken = "3a7f21c4a6d90e8b1f27c34a5d6e0f81b2c3d4e59f8c1d0a4b7e2f36c5108ad9"
    static let pushToStartToken = "b2c3d4e59f8c1d0a4b7e2f36c5108ad93a7f21c4a6d90e8b1f27c34a5d6e0f81"
    static let hour = 3600.0

    /// An app with one registered device, on a manual clock.
    struct Fixture {
        var app: TestApp
        var clock: ManualClock
        var created: CreatedApp
        var subscriptionID: String
        var headers: HTTPHeaders { .sdkKey(created.sdkKey) }
        var base: String { "/v1/apps/\(created.app.id)/live-activities" }

        static func make(_ settings: AppSettings = AppSettings(name: "LA", apnsBundleID: "com.example.la")) async throws -> Fixture {
            let clock = ManualClock()
            let app = try await TestApp.make(now: clock.source)
            let created = try await app.createApp(settings)
            let subscriptionID = try await app.insertSubscription(appID: created.app.id, token: deviceToken)
            return Fixture(app: app, clock: clock, created: created, subscriptionID: subscriptionID)
        }

        func register(_ body: JSONValue, headers extra: HTTPHeaders = [:]) async -> TestResponse {
            var all = headers
            for (name, value) in extra { all.add(name: name, value: value) }
            return await app.request(.post, base, headers: all, json: body)
        }

        func row(_ activityID: String, subscriptionID: String? = nil) async throws -> PostgresRow? {
            try await app.services.database.query("""
                SELECT update_token, activity_type, extract(epoch FROM started_at)::float8 AS started_at,
                       extract(epoch FROM stale_at)::float8 AS stale_at, ended_at IS NOT NULL AS ended, ended_reason
                FROM live_activities WHERE activity_id = \(activityID) AND subscription_id = \(subscriptionID ?? self.subscriptionID)
                """).first
        }
    }

    static func registration(activityID: String = "order-58213", type: String? = "DeliveryAttributes",
                             updateToken: String = updateToken, staleAt: JSONValue? = nil) -> JSONValue {
        var body: JSONObject = ["token": .string(deviceToken), "activity_id": .string(activityID), "update_token": .string(updateToken)]
        if let type { body["activity_type"] = .string(type) }
        if let staleAt { body["stale_at"] = staleAt }
        return .object(body)
    }

    // MARK: register

    @Test func registersAnUpdateToken() async throws {
        let fixture = try await Fixture.make()
        let now = fixture.clock.now()
        let response = await fixture.register(Self.registration())
        #expect(response.status == 200)
        let body = try #require(response.json?.objectValue)
        #expect(Identifier.isWellFormed(body["id"]?.stringValue ?? "", prefix: "lact"))
        #expect(body.keys == ["id", "app", "activity_id", "created", "started_at", "stale_at", "active_until", "note"])
        #expect(body["app"] == .string(fixture.created.app.id))
        #expect(body["activity_id"] == "order-58213")
        #expect(body["created"] == true)
        #expect(body["started_at"]?.doubleValue == now)
        #expect(body["stale_at"]?.doubleValue == now + 8 * Self.hour)
        #expect(body["active_until"]?.doubleValue == now + 8 * Self.hour)
        #expect(body["note"] == "updates are accepted for 8h from started_at, an end for 4h after that")
    }

    @Test func staleAtIsClampedToEightHoursButMayBeShorter() async throws {
        let fixture = try await Fixture.make()
        let now = fixture.clock.now()
        let long = await fixture.register(Self.registration(activityID: "a", staleAt: .double(now + 24 * Self.hour)))
        #expect(long.json?.objectValue?["stale_at"]?.doubleValue == now + 8 * Self.hour)
        let short = await fixture.register(Self.registration(activityID: "b", staleAt: .string(String(Int(now + Self.hour)))))
        #expect(short.json?.objectValue?["stale_at"]?.doubleValue == now + Self.hour)
    }

    @Test func reRegisteringRefreshesTheTokenButNeverMovesTheWindow() async throws {
        let fixture = try await Fixture.make()
        let start = fixture.clock.now()
        let first = await fixture.register(Self.registration(type: nil, staleAt: .double(start + Self.hour)))
        _ = await fixture.app.request(.post, fixture.base + "/order-58213/end", headers: fixture.headers,
                                      json: ["token": .string(Self.deviceToken)])
        fixture.clock.advance(by: 2 * Self.hour)
        let newToken = String(repeating: "cd", count: 40)
        let second = await fixture.register(Self.registration(updateToken: newToken, staleAt: .double(start + 7 * Self.hour)))
        #expect(second.status == 200)
        let body = try #require(second.json?.objectValue)
        #expect(body["created"] == false)
        #expect(body["id"] == first.json?.objectValue?["id"])
        #expect(body["started_at"]?.doubleValue == start)
        #expect(body["stale_at"]?.doubleValue == start + Self.hour)
        let row = try #require(try await fixture.row("order-58213"))
        #expect(try row.decode("update_token", as: String.self) == newToken)
        #expect(try row.decode("activity_type", as: String?.self) == "DeliveryAttributes")
        #expect(try row.decode("ended", as: Bool.self) == false)
    }

    @Test func theSameActivityIDOnTwoDevicesIsTwoRows() async throws {
        let fixture = try await Fixture.make()
        let second = try await fixture.app.insertSubscription(appID: fixture.created.app.id, token: Self.otherDeviceToken)
        _ = await fixture.register(Self.registration())
        var other = Self.registration().objectValue!
        other["token"] = .string(Self.otherDeviceToken)
        let response = await fixture.register(.object(other))
        #expect(response.json?.objectValue?["created"] == true)
        #expect(try await fixture.row("order-58213") != nil)
        #expect(try await fixture.row("order-58213", subscriptionID: second) != nil)
    }

    @Test(arguments: [nil, JSONValue.string(""), .string("   "), .null])
    func aBlankActivityIDIsTheLongMessage(_ activityID: JSONValue?) async throws {
        let fixture = try await Fixture.make()
        var body = Self.registration().objectValue!
        body["activity_id"] = activityID
        let response = await fixture.register(.object(body))
        #expect(response.status == 400)
        #expect(response.json == ["detail": "activity_id is required — an activity with no id cannot be updated, ended or found by a fan-out"])
    }

    @Test(arguments: [
        String(repeating: "zz", count: 32),
        String(repeating: "a", count: 65),
        String(repeating: "ab", count: 31),
        String(repeating: "ab", count: 257),
    ])
    func aBadUpdateTokenIs400(_ token: String) async throws {
        let fixture = try await Fixture.make()
        let response = await fixture.register(Self.registration(updateToken: token))
        #expect(response.status == 400)
        #expect(response.json?.objectValue?["detail"]?.stringValue?.hasPrefix("update_token") == true)
    }

    @Test(arguments: [JSONValue.bool(true), .object(["at": 1]), .string("soon"), .array([1])])
    func anUnparseableStaleAtIs400(_ staleAt: JSONValue) async throws {
        let fixture = try await Fixture.make()
        let response = await fixture.register(Self.registration(staleAt: staleAt))
        #expect(response.status == 400)
        #expect(response.json?.objectValue?["detail"]?.stringValue?.hasPrefix("stale_at must be a number") == true)
    }

    @Test func aNonPositiveStaleAtIsTheDocumentedMessage() async throws {
        let fixture = try await Fixture.make()
        let response = await fixture.register(Self.registration(staleAt: -1))
        #expect(response.status == 400)
        #expect(response.json == ["detail": "stale_at must be a finite positive unix timestamp, got -1"])
        let zero = await fixture.register(Self.registration(staleAt: 0))
        #expect(zero.json == ["detail": "stale_at must be a finite positive unix timestamp, got 0"])
    }

    @Test func anUnknownDeviceTokenIs404() async throws {
        let fixture = try await Fixture.make()
        var body = Self.registration().objectValue!
        body["token"] = .string(Self.otherDeviceToken)
        let response = await fixture.register(.object(body))
        #expect(response.status == 404)
        #expect(response.json == ["detail": "unknown device token for this app — register the device before its Live Activities"])
    }

    @Test func unknownFieldsAreIgnoredButWrongTypesAreNot() async throws {
        let fixture = try await Fixture.make()
        var body = Self.registration().objectValue!
        body["sdk_version"] = "5.1.0"
        #expect(await fixture.register(.object(body)).status == 200)
        body["token"] = 42
        let response = await fixture.register(.object(body))
        #expect(response.status == 400)
        #expect(response.json == ["detail": "token must be a string, got number"])
    }

    @Test func aSharedDemoAppRefusesAnActivityIDHeldByAnotherDevice() async throws {
        let fixture = try await Fixture.make(AppSettings(name: "Shared", sharedDemo: true))
        try await fixture.app.services.database.query("""
            UPDATE subscriptions SET device_key_digest = \(KeyMaterial.digest("dev_a")) WHERE id = \(fixture.subscriptionID)
            """)
        try await fixture.app.insertSubscription(appID: fixture.created.app.id, token: Self.otherDeviceToken, deviceKey: "dev_b")
        #expect(await fixture.register(Self.registration(), headers: ["X-OP-Device-Key": "dev_a"]).status == 200)
        var other = Self.registration().objectValue!
        other["token"] = .string(Self.otherDeviceToken)
        let response = await fixture.register(.object(other), headers: ["X-OP-Device-Key": "dev_b"])
        #expect(response.status == 403)
        #expect(response.json == ["detail": "live activity 'order-58213' belongs to another device — an activity id is not a capability"])
    }

    @Test func aSharedDemoAppRequiresTheDevicesKey() async throws {
        let fixture = try await Fixture.make(AppSettings(name: "Shared", sharedDemo: true))
        try await fixture.app.services.database.query("""
            UPDATE subscriptions SET device_key_digest = \(KeyMaterial.digest("dev_a")) WHERE id = \(fixture.subscriptionID)
            """)
        for extra: HTTPHeaders in [[:], ["X-OP-Device-Key": "dev_wrong"]] {
            let response = await fixture.register(Self.registration(), headers: extra)
            #expect(response.status == 401)
            #expect(response.json?.objectValue?["detail"]?.stringValue?.contains("X-OP-Device-Key") == true)
        }
    }

    @Test func anOrdinaryAppIgnoresTheDeviceKeyHeader() async throws {
        let fixture = try await Fixture.make()
        #expect(await fixture.register(Self.registration(), headers: ["X-OP-Device-Key": "anything"]).status == 200)
    }

    @Test func anotherAppsKeysAndDevicesGetNothing() async throws {
        let fixture = try await Fixture.make()
        let other = try await fixture.app.createApp()
        let crossedKey = await fixture.app.request(.post, fixture.base, headers: .sdkKey(other.sdkKey), json: Self.registration())
        #expect(crossedKey.status == 401)
        #expect(crossedKey.json == ["detail": .string(Authentication.badSDKKey)])
        // App B's own key on its own path cannot reach app A's device.
        let crossedDevice = await fixture.app.request(.post, "/v1/apps/\(other.app.id)/live-activities",
                                                      headers: .sdkKey(other.sdkKey), json: Self.registration())
        #expect(crossedDevice.status == 404)
        let unknownApp = await fixture.app.request(.post, "/v1/apps/app_missing/live-activities", headers: fixture.headers,
                                                   json: Self.registration())
        #expect(unknownApp.status == 404)
        #expect(unknownApp.json == ["detail": "unknown app 'app_missing'"])
        let noKey = await fixture.app.request(.post, fixture.base, json: Self.registration())
        #expect(noKey.status == 401)
    }

    // MARK: end

    @Test func endStampsOnlyThisDevicesRowAndKeepsIt() async throws {
        let fixture = try await Fixture.make()
        let second = try await fixture.app.insertSubscription(appID: fixture.created.app.id, token: Self.otherDeviceToken)
        _ = await fixture.register(Self.registration())
        var other = Self.registration().objectValue!
        other["token"] = .string(Self.otherDeviceToken)
        _ = await fixture.register(.object(other))
        let response = await fixture.app.request(.post, fixture.base + "/order-58213/end", headers: fixture.headers,
                                                 json: ["token": .string(Self.deviceToken)])
        #expect(response.status == 200)
        #expect(response.json == ["app": .string(fixture.created.app.id), "activity_id": "order-58213", "ended": true])
        let ended = try #require(try await fixture.row("order-58213"))
        #expect(try ended.decode("ended", as: Bool.self))
        #expect(try ended.decode("ended_reason", as: String?.self) == "device")
        let untouched = try #require(try await fixture.row("order-58213", subscriptionID: second))
        #expect(try untouched.decode("ended", as: Bool.self) == false)
    }

    @Test func endingAnotherDevicesActivityAnswersLikeAMissingOne() async throws {
        let fixture = try await Fixture.make()
        try await fixture.app.insertSubscription(appID: fixture.created.app.id, token: Self.otherDeviceToken)
        var other = Self.registration().objectValue!
        other["token"] = .string(Self.otherDeviceToken)
        _ = await fixture.register(.object(other))
        for activityID in ["order-58213", "never-registered"] {
            let response = await fixture.app.request(.post, fixture.base + "/\(activityID)/end", headers: fixture.headers,
                                                     json: ["token": .string(Self.deviceToken)])
            #expect(response.status == 404)
            #expect(response.json == ["detail": .string("no live activity '\(activityID)' on this device")])
        }
        let unknownDevice = await fixture.app.request(.post, fixture.base + "/order-58213/end", headers: fixture.headers,
                                                      json: ["token": "abcdef0123"])
        #expect(unknownDevice.status == 404)
        #expect(unknownDevice.json == ["detail": "unknown device token for this app"])
    }

    // MARK: push-to-start

    @Test func pushToStartRegistersThenReplaces() async throws {
        let fixture = try await Fixture.make()
        let body: JSONValue = ["token": .string(Self.deviceToken), "activity_type": "DeliveryAttributes",
                               "push_to_start_token": .string(Self.pushToStartToken)]
        let first = await fixture.app.request(.post, fixture.base + "/push-to-start", headers: fixture.headers, json: body)
        #expect(first.status == 200)
        let firstBody = try #require(first.json?.objectValue)
        #expect(firstBody.keys == ["id", "app", "activity_type", "created"])
        #expect(Identifier.isWellFormed(firstBody["id"]?.stringValue ?? "", prefix: "pts"))
        #expect(firstBody["created"] == true)
        #expect(firstBody["activity_type"] == "DeliveryAttributes")
        var replacement = body.objectValue!
        replacement["push_to_start_token"] = .string(String(repeating: "ef", count: 32))
        let second = await fixture.app.request(.post, fixture.base + "/push-to-start", headers: fixture.headers, json: .object(replacement))
        #expect(second.json?.objectValue?["created"] == false)
        #expect(second.json?.objectValue?["id"] == firstBody["id"])
        let rows = try await fixture.app.services.database.query("SELECT token FROM push_to_start_tokens WHERE subscription_id = \(fixture.subscriptionID)")
        #expect(rows.count == 1)
        #expect(try rows[0].decode("token", as: String.self) == String(repeating: "ef", count: 32))
    }

    @Test func pushToStartErrors() async throws {
        let fixture = try await Fixture.make()
        let path = fixture.base + "/push-to-start"
        let blankType = await fixture.app.request(.post, path, headers: fixture.headers, json: [
            "token": .string(Self.deviceToken), "activity_type": " ", "push_to_start_token": .string(Self.pushToStartToken)])
        #expect(blankType.status == 400)
        #expect(blankType.json == ["detail": "activity_type is required"])
        let badToken = await fixture.app.request(.post, path, headers: fixture.headers, json: [
            "token": .string(Self.deviceToken), "activity_type": "T", "push_to_start_token": "xyz"])
        #expect(badToken.status == 400)
        #expect(badToken.json == ["detail": "push_to_start_token must be hexadecimal"])
        let unknown = await fixture.app.request(.post, path, headers: fixture.headers, json: [
            "token": "abcdef", "activity_type": "T", "push_to_start_token": .string(Self.pushToStartToken)])
        #expect(unknown.status == 404)
        #expect(unknown.json == ["detail": "unknown device token for this app"])
    }

    @Test func pushToStartRemove() async throws {
        let fixture = try await Fixture.make()
        let path = fixture.base + "/push-to-start/remove"
        _ = await fixture.app.request(.post, fixture.base + "/push-to-start", headers: fixture.headers, json: [
            "token": .string(Self.deviceToken), "activity_type": "DeliveryAttributes", "push_to_start_token": .string(Self.pushToStartToken)])
        let removal: JSONValue = ["token": .string(Self.deviceToken), "activity_type": "DeliveryAttributes"]
        let removed = await fixture.app.request(.post, path, headers: fixture.headers, json: removal)
        #expect(removed.status == 200)
        #expect(removed.json == ["ok": true])
        let again = await fixture.app.request(.post, path, headers: fixture.headers, json: removal)
        #expect(again.status == 404)
        #expect(again.json == ["detail": "no push-to-start token for 'DeliveryAttributes' on this device"])
        let blank = await fixture.app.request(.post, path, headers: fixture.headers, json: ["token": .string(Self.deviceToken)])
        #expect(blank.status == 400)
        #expect(blank.json == ["detail": "activity_type is required"])
        let unknown = await fixture.app.request(.post, path, headers: fixture.headers, json: ["token": "abcdef", "activity_type": "T"])
        #expect(unknown.status == 404)
        #expect(unknown.json == ["detail": "unknown device token for this app"])
    }

    // MARK: click

    static func clicks(_ fixture: Fixture, _ messageID: String) async throws -> (total: Int, clickedAt: Double?) {
        let row = try await fixture.app.services.database.query("""
            SELECT m.clicks, extract(epoch FROM d.clicked_at)::float8 AS clicked_at
            FROM messages m JOIN deliveries d ON d.message_id = m.id WHERE m.id = \(messageID)
            """).firstRow()
        return (try row.decode("clicks"), try row.decode("clicked_at"))
    }

    @Test func aClickWithANotificationIDCountsEveryTapAndStampsTheFirst() async throws {
        let fixture = try await Fixture.make()
        let message = try await fixture.app.insertLiveActivityPush(appID: fixture.created.app.id, subscriptionID: fixture.subscriptionID,
                                                                   activityID: "order-58213")
        let path = fixture.base + "/order-58213/click"
        let body: JSONValue = ["token": .string(Self.deviceToken), "notification_id": .string(message)]
        let first = await fixture.app.request(.post, path, headers: fixture.headers, json: body)
        #expect(first.status == 200)
        #expect(first.json == ["ok": true])
        let firstTime = fixture.clock.now()
        fixture.clock.advance(by: 60)
        _ = await fixture.app.request(.post, path, headers: fixture.headers, json: body)
        let counted = try await Self.clicks(fixture, message)
        #expect(counted.total == 2)
        #expect(counted.clickedAt == firstTime)
    }

    @Test func aClickWithoutANotificationIDUsesTheMostRecentPush() async throws {
        let fixture = try await Fixture.make()
        let appID = fixture.created.app.id
        let older = try await fixture.app.insertLiveActivityPush(appID: appID, subscriptionID: fixture.subscriptionID,
                                                                 activityID: "order-58213", activityType: "A", at: fixture.clock.now() - 100)
        let newer = try await fixture.app.insertLiveActivityPush(appID: appID, subscriptionID: fixture.subscriptionID,
                                                                 activityID: "order-58213", activityType: "B", at: fixture.clock.now() - 10)
        let path = fixture.base + "/order-58213/click"
        _ = await fixture.app.request(.post, path, headers: fixture.headers, json: ["token": .string(Self.deviceToken)])
        #expect(try await Self.clicks(fixture, newer).total == 1)
        #expect(try await Self.clicks(fixture, older).total == 0)
        // activity_type narrows to the older push.
        _ = await fixture.app.request(.post, path, headers: fixture.headers, json: ["token": .string(Self.deviceToken), "activity_type": "A"])
        #expect(try await Self.clicks(fixture, older).total == 1)
    }

    @Test func aClickWithNothingToAttributeIs404() async throws {
        let fixture = try await Fixture.make()
        let other = try await fixture.app.insertSubscription(appID: fixture.created.app.id, token: Self.otherDeviceToken)
        let elsewhere = try await fixture.app.insertLiveActivityPush(appID: fixture.created.app.id, subscriptionID: other,
                                                                     activityID: "order-58213")
        let path = fixture.base + "/order-58213/click"
        for body: JSONValue in [["token": .string(Self.deviceToken)],
                                ["token": .string(Self.deviceToken), "notification_id": .string(elsewhere)],
                                ["token": .string(Self.deviceToken), "notification_id": "msg_unknown"]] {
            let response = await fixture.app.request(.post, path, headers: fixture.headers, json: body)
            #expect(response.status == 404)
            #expect(response.json == ["detail": "no live activity push to attribute this click to"])
        }
        #expect(try await Self.clicks(fixture, elsewhere).total == 0)
        let unknown = await fixture.app.request(.post, path, headers: fixture.headers, json: ["token": "abcdef"])
        #expect(unknown.status == 404)
        #expect(unknown.json == ["detail": "unknown device token for this app"])
    }
}
