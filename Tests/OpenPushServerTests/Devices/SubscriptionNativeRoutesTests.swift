import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport

/// `POST /v1/apps/{app_id}/subscriptions` and `…/subscriptions/retire`, called by SDKs.
@Suite struct SubscriptionNativeRoutesTests {
    @Test func registersThenRefreshesCountingSessions() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(now: clock.now)
        let created = try await app.createApp()
        let token = Registry.token(1)
        let first = await app.registerDevice(created, [
            "token": .string(token.uppercased()), "platform": "watchos", "environment": "sandbox", "tags": ["level": "1", "team": "red"],
            "language": "en", "country": "US", "timezone": "America/New_York", "app_version": "1.0",
            "device_model": "Watch7,1", "device_os": "10.1",
        ])
        #expect(first.status == 201)
        let id = try #require(first.json?.objectValue?["id"]?.stringValue)
        #expect(Identifier.isWellFormed(id, prefix: "sub"))
        #expect(first.json == ["id": .string(id), "created": true])

        clock.advance(by: 3600)
        let again = await app.registerDevice(created, ["token": .string(token), "tags": ["level": "2", "team": ""],
                                                       "language": "fr", "enabled": false])
        #expect(again.status == 200)
        #expect(again.json == ["id": .string(id), "created": false])

        let view = await app.subscription(created, id)
        #expect(view.status == 200)
        #expect(view.json == [
            "id": .string(id), "type": "iOSPush", "token": .string(token), "enabled": false, "notification_types": -2,
            "session_count": 2, "language": "fr", "country": "US", "timezone": "America/New_York", "app_version": "1.0",
            "device_model": "Watch7,1", "device_os": "10.1", "tags": ["level": "2"], "external_id": nil,
            "platform": "watchos", "environment": "sandbox", "first_session_at": 1_800_000_000,
            "last_session_at": 1_800_003_600, "retired_at": nil, "retired": false, "hide_details": false,
            "quiet_hours": nil, "muted_threads": [], "push_token_kinds": [],
        ])
    }

    @Test func defaultsAreIOSProductionEnabled() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await app.deviceID(created, ["token": .string(Registry.token(2))])
        let view = try #require(await app.subscription(created, id).json?.objectValue)
        #expect(view["platform"] == "ios")
        #expect(view["environment"] == "production")
        #expect(view["enabled"] == true)
        #expect(view["notification_types"] == 1)
        #expect(view["session_count"] == 1)
        #expect(view["tags"] == [:])
    }

    @Test func previousTokenSupersedesTheOldSubscription() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(now: clock.now)
        let created = try await app.createApp()
        let old = try await app.deviceID(created, ["token": .string(Registry.token(10))])
        clock.advance(by: 60)
        let refreshed = await app.registerDevice(created, ["token": .string(Registry.token(11)),
                                                           "previous_token": .string(Registry.token(10))])
        #expect(refreshed.status == 201)
        let new = try #require(refreshed.json?.objectValue?["id"]?.stringValue)
        #expect(new != old)

        let rows = try await app.services.database.query("""
            SELECT extract(epoch FROM retired_at)::float8 AS retired_at, superseded_by FROM subscriptions WHERE id = \(old)
            """)
        #expect(try rows[0].decode("retired_at", as: Double?.self) == 1_800_000_060)
        #expect(try rows[0].decode("superseded_by", as: String?.self) == new)
        let oldView = try #require(await app.subscription(created, old).json?.objectValue)
        #expect(oldView["retired"] == true)
        #expect(oldView["retired_at"] == 1_800_000_060)
        #expect(oldView["notification_types"] == -2)
        #expect(await app.subscription(created, new).json?.objectValue?["retired"] == false)

        // An unknown previous token is ignored: the SDK may remember a token the server never saw.
        let unknownPrevious = await app.registerDevice(created, ["token": .string(Registry.token(12)),
                                                                 "previous_token": .string(Registry.token(99))])
        #expect(unknownPrevious.status == 201)
    }

    @Test func retireThenReRegisterBringsTheDeviceBack() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(now: clock.now)
        let created = try await app.createApp()
        let token = Registry.token(20)
        let id = try await app.deviceID(created, ["token": .string(token)])
        let retire = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                       headers: .sdkKey(created.sdkKey), json: ["token": .string(token.uppercased())])
        #expect(retire.status == 200)
        #expect(retire.json == ["ok": true])
        #expect(await app.subscription(created, id).json?.objectValue?["retired"] == true)

        clock.advance(by: 10)
        let back = await app.registerDevice(created, ["token": .string(token)])
        #expect(back.status == 200)
        #expect(back.json == ["id": .string(id), "created": false])
        let view = try #require(await app.subscription(created, id).json?.objectValue)
        #expect(view["retired"] == false)
        #expect(view["retired_at"] == .null)
        #expect(view["notification_types"] == 1)
        #expect(view["session_count"] == 2)
    }

    @Test func supersededDeviceComesBackClean() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let old = try await app.deviceID(created, ["token": .string(Registry.token(30))])
        _ = try await app.deviceID(created, ["token": .string(Registry.token(31)), "previous_token": .string(Registry.token(30))])
        _ = try await app.deviceID(created, ["token": .string(Registry.token(30))])
        let rows = try await app.services.database.query("SELECT retired_at IS NULL AS live, superseded_by FROM subscriptions WHERE id = \(old)")
        #expect(try rows[0].decode("live", as: Bool.self))
        #expect(try rows[0].decode("superseded_by", as: String?.self) == nil)
    }

    @Test func retireUnknownTokenIsTheContractsNotFound() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let response = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                         headers: .sdkKey(created.sdkKey), json: ["token": .string(Registry.token(40))])
        #expect(response.status == 404)
        #expect(response.json == ["detail": "unknown device token for this app"])
        let bad = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                    headers: .sdkKey(created.sdkKey), json: ["token": "x yz", "extra": 1])
        #expect(bad.status == 400)
        // The token may be an Android device's (opaque), so only its characters are checked here.
        #expect(bad.json == ["detail": "token must be printable ASCII without spaces (! to ~); unknown field 'extra'"])
    }

    /// SDKs add fields over time, so unknown ones are ignored as on the other `/v1` routes;
    /// a known field of the wrong type is still a `400`.
    @Test func registrationIgnoresUnknownFields() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let registered = await app.registerDevice(created, [
            "token": .string(Registry.token(1)), "language": "en", "push_provider": "apns", "sdk": ["version": "5.2"],
        ])
        #expect(registered.status == 201, "\(registered.text)")
        let wrongType = await app.registerDevice(created, ["token": .string(Registry.token(2)), "enabled": "yes", "extra": 1])
        #expect(wrongType.status == 400)
        #expect(wrongType.json == ["detail": "enabled must be a boolean, got string"])
    }

    @Test func registrationErrors() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let path = "/v1/apps/\(created.app.id)/subscriptions"
        let badToken = await app.registerDevice(created, ["token": .string(String(repeating: "a", count: 63))])
        #expect(badToken.status == 400)
        #expect(badToken.json == ["detail": "token must have an even number of hex characters"])
        let missing = await app.registerDevice(created, ["platform": "windows"])
        #expect(missing.json == ["detail": "token is required; platform must be one of: ios, watchos, macos, android, web"])
        let notObject = await app.request(.post, path, headers: .sdkKey(created.sdkKey), json: ["a", "b"])
        #expect(notObject.status == 400)
        #expect(notObject.json == ["detail": "the request body must be a JSON object"])
        let noKey = await app.request(.post, path, json: ["token": .string(Registry.token(1))])
        #expect(noKey.status == 401)
        #expect(noKey.json == ["detail": .string(Authentication.badSDKKey)])
        let unknownApp = await app.request(.post, "/v1/apps/app_nothere/subscriptions", headers: .sdkKey(created.sdkKey),
                                           json: ["token": .string(Registry.token(1))])
        #expect(unknownApp.status == 404)
        #expect(unknownApp.json == ["detail": "unknown app 'app_nothere'"])
        let count = try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions")
        #expect(try count[0].decode("n", as: Int.self) == 0)
    }

    @Test func externalIDCreatesItsUserOnce() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let first = try await app.deviceID(created, ["token": .string(Registry.token(50)), "external_id": "u-1"])
        let second = try await app.deviceID(created, ["token": .string(Registry.token(51)), "external_id": "u-1"])
        let users = try await app.services.database.query("SELECT count(*)::int AS n FROM users WHERE app_id = \(created.app.id)")
        #expect(try users[0].decode("n", as: Int.self) == 1)
        let user = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/u-1", headers: .restKey(created.restKey))
        #expect(user.status == 200)
        let devices = user.json?.objectValue?["subscriptions"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(devices == [first, second])
        // "" signs the device out of its user.
        _ = try await app.deviceID(created, ["token": .string(Registry.token(51)), "external_id": ""])
        #expect(await app.subscription(created, second).json?.objectValue?["external_id"] == .null)
    }

    @Test func anotherAppsSDKKeyNeverReachesThisApp() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let token = Registry.token(60)
        let id = try await app.deviceID(a, ["token": .string(token)])
        for path in ["/v1/apps/\(a.app.id)/subscriptions", "/v1/apps/\(a.app.id)/subscriptions/retire"] {
            let crossed = await app.request(.post, path, headers: .sdkKey(b.sdkKey), json: ["token": .string(token)])
            #expect(crossed.status == 401)
            #expect(crossed.json == ["detail": .string(Authentication.badSDKKey)])
        }
        // B's own routes know nothing of A's token: retiring it is a 404, registering it makes B's own row.
        let retire = await app.request(.post, "/v1/apps/\(b.app.id)/subscriptions/retire", headers: .sdkKey(b.sdkKey),
                                       json: ["token": .string(token)])
        #expect(retire.status == 404)
        let inB = await app.registerDevice(b, ["token": .string(token), "previous_token": .string(Registry.token(60))])
        #expect(inB.status == 201)
        #expect(inB.json?.objectValue?["id"]?.stringValue != id)
        let view = try #require(await app.subscription(a, id).json?.objectValue)
        #expect(view["retired"] == false)
        #expect(view["session_count"] == 1)
    }

    /// The contract's lifecycle rule: retiring, superseding or deleting a device closes its open
    /// Live Activities, all through `SubscriptionStore.retire`.
    @Test func everyRetirementClosesTheDevicesOpenLiveActivities() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(now: clock.now)
        let created = try await app.createApp()
        let appID = created.app.id
        var devices: [String] = []
        for seed in 70..<73 {
            let id = try await app.deviceID(created, ["token": .string(Registry.token(seed))])
            let now = clock.now()
            try await app.services.database.withConnection { connection in
                _ = try LiveActivityStore.register(appID: appID, subscriptionID: id, activityID: "order-\(seed)", activityType: nil,
                                                   updateToken: String(repeating: "ab", count: 32), requestedStaleAt: nil,
                                                   now: now, in: connection)
            }
            devices.append(id)
        }
        clock.advance(by: 5)
        let retire = await app.request(.post, "/v1/apps/\(appID)/subscriptions/retire", headers: .sdkKey(created.sdkKey),
                                       json: ["token": .string(Registry.token(70))])
        #expect(retire.status == 200)
        _ = try await app.deviceID(created, ["token": .string(Registry.token(80)), "previous_token": .string(Registry.token(71))])
        let delete = await app.request(.delete, "/apps/\(appID)/subscriptions/\(devices[2])", headers: .restKey(created.restKey))
        #expect(delete.status == 200)

        let rows = try await app.services.database.query("""
            SELECT subscription_id, ended_reason, extract(epoch FROM ended_at)::float8 AS ended_at
            FROM live_activities WHERE app_id = \(appID) ORDER BY subscription_id
            """)
        #expect(rows.count == 3)
        for row in rows {
            #expect(try row.decode("ended_reason", as: String?.self) == "retired")
            #expect(try row.decode("ended_at", as: Double?.self) == 1_800_000_005)
        }
        // Retired is unknown to the /v1 routes, as for the Live Activity routes.
        let again = await app.request(.post, "/v1/apps/\(appID)/subscriptions/retire", headers: .sdkKey(created.sdkKey),
                                      json: ["token": .string(Registry.token(70))])
        #expect(again.status == 404)
        #expect(again.json == ["detail": "unknown device token for this app"])
    }

    /// On a shared demo app every tenant holds the SDK key: a linked device changes only with its device key.
    @Test func sharedDemoDevicesChangeOnlyWithTheirDeviceKey() async throws {
        let app = try await TestApp.make()
        let shared = try await app.createApp(AppSettings(name: "Demo", sharedDemo: true))
        let appID = shared.app.id
        let deviceKey = KeyMaterial.issue(prefix: "dev")
        let linked = try await app.deviceID(shared, ["token": .string(Registry.token(90))])
        try await app.services.database.transaction { connection in
            try connection.query("INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(appID), 'AAA')")
            try connection.query("""
                UPDATE subscriptions SET tenant_id = 'ten_a', device_key_digest = \(deviceKey.digest) WHERE id = \(linked)
                """)
        }
        let path = "/v1/apps/\(appID)/subscriptions"
        let body: JSONValue = ["token": .string(Registry.token(90)), "tags": ["owner": "mallory"]]
        let withoutKey = await app.request(.post, path, headers: .sdkKey(shared.sdkKey), json: body)
        #expect(withoutKey.status == 401)
        #expect(withoutKey.json == ["detail": .string(NativeDevice.missingDeviceKey)])
        var headers = HTTPHeaders.sdkKey(shared.sdkKey)
        headers.add(name: "X-OP-Device-Key", value: "dev_wrong")
        #expect(await app.request(.post, path, headers: headers, json: body).status == 401)
        let supersede = await app.request(.post, path, headers: .sdkKey(shared.sdkKey),
                                          json: ["token": .string(Registry.token(91)), "previous_token": .string(Registry.token(90))])
        #expect(supersede.status == 401)
        #expect(await app.request(.post, "\(path)/retire", headers: .sdkKey(shared.sdkKey),
                                  json: ["token": .string(Registry.token(90))]).status == 401)

        // With its key the device refreshes its token, and the new subscription stays linked.
        headers = .sdkKey(shared.sdkKey)
        headers.add(name: "X-OP-Device-Key", value: deviceKey.value)
        let refreshed = await app.request(.post, path, headers: headers,
                                          json: ["token": .string(Registry.token(91)), "previous_token": .string(Registry.token(90))])
        #expect(refreshed.status == 201)
        let newID = try #require(refreshed.json?.objectValue?["id"]?.stringValue)
        let rows = try await app.services.database.query("SELECT tenant_id, device_key_digest FROM subscriptions WHERE id = \(newID)")
        #expect(try rows[0].decode("tenant_id", as: String?.self) == "ten_a")
        #expect(try rows[0].decode("device_key_digest", as: [UInt8]?.self) == deviceKey.digest)
        // A device never linked registers freely.
        #expect(await app.registerDevice(shared, ["token": .string(Registry.token(92))]).status == 201)
    }
}
