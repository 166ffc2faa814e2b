import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Android devices beside Apple ones: an FCM registration token is opaque printable ASCII, kept
/// exactly as sent, and found exactly as sent by every route that names a device by its token;
/// Live Activities and widgets stay Apple's.
@Suite struct AndroidDeviceRoutesTests {
    /// Shaped like an FCM token: mixed case, a colon, `-` and `_`.
    static func fcmToken(_ seed: String) -> String { "cXk9Ab-\(seed):APA91bH_Qz7LmNoPqRsTuVwXyZ0123456789-AbCdEf_\(seed)" }

    static func android(_ token: String, _ extra: JSONObject = [:]) -> JSONObject {
        var body: JSONObject = ["token": .string(token), "platform": "android"]
        for (key, value) in extra { body[key] = value }
        return body
    }

    static func detail(_ response: TestResponse) -> String? { response.json?.objectValue?["detail"]?.stringValue }

    @Test func anAndroidTokenIsKeptAsSentAndReRegistersToTheSameDevice() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(now: clock.now)
        let created = try await app.createApp()
        let token = Self.fcmToken("one")
        let first = await app.registerDevice(created, Self.android(token, [
            "tags": ["level": "3"], "external_id": "u-android", "language": "de", "timezone": "Europe/Berlin",
            "quiet_hours": ["start": "22:00", "end": "07:00"], "muted_threads": ["chat-1"],
        ]))
        #expect(first.status == 201, "\(first.text)")
        let id = try #require(first.json?.objectValue?["id"]?.stringValue)

        clock.advance(by: 60)
        let again = await app.registerDevice(created, Self.android(token, ["language": "fr"]))
        #expect(again.status == 200)
        #expect(again.json == ["id": .string(id), "created": false])

        let view = try #require(await app.subscription(created, id).json?.objectValue)
        #expect(view["token"] == .string(token))
        #expect(view["platform"] == "android")
        #expect(view["type"] == "AndroidPush")
        #expect(view["session_count"] == 2)
        #expect(view["language"] == "fr")
        #expect(view["timezone"] == "Europe/Berlin")
        #expect(view["external_id"] == "u-android")
        #expect(view["tags"] == ["level": "3"])
        #expect(view["muted_threads"] == ["chat-1"])
        #expect(view["quiet_hours"] != .null)
        let stored = try await app.services.database.query("SELECT token FROM subscriptions WHERE id = \(id)")
        #expect(try stored[0].decode("token", as: String.self) == token)

        // Not lower-cased: the same text in another case is another device.
        let lower = await app.registerDevice(created, Self.android(token.lowercased()))
        #expect(lower.status == 201)
        #expect(lower.json?.objectValue?["id"]?.stringValue != id)

        // The user's devices show it with OneSignal's type.
        let user = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/u-android",
                                     headers: .restKey(created.restKey))
        let devices = try #require(user.json?.objectValue?["subscriptions"]?.arrayValue)
        #expect(devices.count == 1)
        #expect(devices.first?.objectValue?["type"] == "AndroidPush")
        #expect(devices.first?.objectValue?["platform"] == "android")
        #expect(devices.first?.objectValue?["token"] == .string(token))
    }

    @Test func theTokenIsOneTo4096PrintableCharacters() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let longest = String(repeating: "A", count: 4096)
        #expect(await app.registerDevice(created, Self.android(longest)).status == 201)

        let tooLong = await app.registerDevice(created, Self.android(longest + "B"))
        #expect(tooLong.status == 400)
        #expect(Self.detail(tooLong) == "token must be 1 to 4096 characters, got 4097")
        let control = await app.registerDevice(created, Self.android("abc\u{01}def"))
        #expect(control.status == 400)
        #expect(Self.detail(control) == "token must be printable ASCII without spaces (! to ~)")
        let space = await app.registerDevice(created, Self.android("abc def"))
        #expect(space.status == 400)
        #expect(Self.detail(space) == "token must be printable ASCII without spaces (! to ~)")

        // Apple devices keep the hex rule.
        let apple = await app.registerDevice(created, ["token": .string(Self.fcmToken("x")), "platform": "ios"])
        #expect(apple.status == 400)
        #expect(Self.detail(apple)?.hasPrefix("token must be") == true)
        #expect(try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions")[0]
            .decode("n", as: Int.self) == 1)
    }

    @Test func aWidgetPushTokenIsApples() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let response = await app.registerDevice(created, Self.android(Self.fcmToken("w"),
                                                                      ["widget_push_token": .string(Registry.token(1))]))
        #expect(response.status == 400)
        #expect(Self.detail(response) == SubscriptionRegistration.widgetTokenAppleOnly)
        #expect(Self.detail(response)?.contains("widget_push_token") == true)
    }

    @Test func previousTokenSupersedesTheOldAndroidSubscription() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let oldToken = Self.fcmToken("old")
        let old = try await app.deviceID(created, Self.android(oldToken, ["external_id": "u-1"]))
        let refreshed = await app.registerDevice(created, Self.android(Self.fcmToken("new"),
                                                                       ["previous_token": .string(oldToken)]))
        #expect(refreshed.status == 201)
        let new = try #require(refreshed.json?.objectValue?["id"]?.stringValue)
        let rows = try await app.services.database.query("""
            SELECT retired_at IS NOT NULL AS retired, superseded_by FROM subscriptions WHERE id = \(old)
            """)
        #expect(try rows[0].decode("retired", as: Bool.self))
        #expect(try rows[0].decode("superseded_by", as: String?.self) == new)

        // A previous token is opaque too, but checked.
        let bad = await app.registerDevice(created, Self.android(Self.fcmToken("newer"), ["previous_token": "a b"]))
        #expect(bad.status == 400)
        #expect(Self.detail(bad) == "previous_token must be printable ASCII without spaces (! to ~)")
    }

    @Test func retireFindsTheAndroidTokenExactlyAsSentAndAnotherAppsKeyIs401() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let token = Self.fcmToken("r")
        let id = try await app.deviceID(created, Self.android(token))
        let apple = try await app.deviceID(created, ["token": .string(Registry.token(7))])

        let crossed = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions",
                                        headers: .sdkKey(other.sdkKey), json: .object(Self.android(Self.fcmToken("x"))))
        #expect(crossed.status == 401)
        let crossedRetire = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                              headers: .sdkKey(other.sdkKey), json: ["token": .string(token)])
        #expect(crossedRetire.status == 401)

        // A tap report finds the device (the unknown notification is what it refuses).
        let opened = await app.request(.post, "/v1/apps/\(created.app.id)/notifications/msg_none/opened",
                                       headers: .sdkKey(created.sdkKey), json: ["token": .string(token)])
        #expect(opened.status == 404)
        #expect(Self.detail(opened) == "notification 'msg_none' not found")
        let wrongCase = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                          headers: .sdkKey(created.sdkKey), json: ["token": .string(token.uppercased())])
        #expect(wrongCase.status == 404)
        let retire = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                       headers: .sdkKey(created.sdkKey), json: ["token": .string(token)])
        #expect(retire.status == 200)
        #expect(await app.subscription(created, id).json?.objectValue?["retired"] == true)
        // An Apple token is still found in any case.
        let appleRetire = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire",
                                            headers: .sdkKey(created.sdkKey), json: ["token": .string(Registry.token(7).uppercased())])
        #expect(appleRetire.status == 200)
        #expect(await app.subscription(created, apple).json?.objectValue?["retired"] == true)
    }

    @Test func oneSignalRoutesCreateShowAndUpdateAndroidPush() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        let other = try await test.createApp()
        try await SubscriptionOneSignalRoutesTests.user(test, app, ["external_id": "u-a"])
        let token = Self.fcmToken("os")
        let path = SubscriptionOneSignalRoutesTests.userPath(app, "u-a")
        let created = await test.request(.post, path, headers: .restKey(app.restKey),
                                         json: ["subscription": ["type": "AndroidPush", "token": .string(token),
                                                                 "device_model": "Pixel 8"]])
        #expect(created.status == 201, "\(created.text)")
        let view = try #require(created.json?.objectValue?["subscription"]?.objectValue)
        let id = try #require(view["id"]?.stringValue)
        #expect(view["type"] == "AndroidPush")
        #expect(view["token"] == .string(token))
        let full = try #require(await test.subscription(app, id).json?.objectValue)
        #expect(full["platform"] == "android")
        #expect(full["type"] == "AndroidPush")

        // The same token again is the same device.
        let again = await test.request(.post, path, headers: .restKey(app.restKey),
                                       json: ["subscription": ["type": "AndroidPush", "token": .string(token)]])
        #expect(again.status == 200)
        #expect(again.json?.objectValue?["subscription"]?.objectValue?["id"] == .string(id))

        // By token: exactly as sent, and only as an AndroidPush.
        let byToken = SubscriptionOneSignalRoutesTests.tokenPath(app, token, type: "AndroidPush")
        let updated = await test.request(.patch, byToken, headers: .restKey(app.restKey),
                                         json: ["subscription": ["enabled": false, "type": "AndroidPush", "token": .string(token)]])
        #expect(updated.status == 200, "\(updated.text)")
        #expect(await test.subscription(app, id).json?.objectValue?["enabled"] == false)
        let asApple = await test.request(.patch, SubscriptionOneSignalRoutesTests.tokenPath(app, token, type: "iOSPush"),
                                         headers: .restKey(app.restKey), json: ["subscription": ["enabled": true]])
        #expect(asApple.status == 400)  // not hex
        let wrongCase = await test.request(.patch, SubscriptionOneSignalRoutesTests.tokenPath(app, token.lowercased(), type: "AndroidPush"),
                                           headers: .restKey(app.restKey), json: ["subscription": ["enabled": true]])
        #expect(wrongCase.status == 404)
        let crossed = await test.request(.patch, byToken, headers: .restKey(other.restKey),
                                         json: ["subscription": ["enabled": true]])
        #expect(crossed.status == 401)
        #expect(await test.subscription(app, id).json?.objectValue?["enabled"] == false)

        // The PATCH by id may repeat the token as sent; another case is another FCM token, to
        // which the device moves.
        let repeated = await test.request(.patch, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey),
                                          json: ["subscription": ["token": .string(token), "enabled": true]])
        #expect(repeated.status == 200, "\(repeated.text)")
        let changed = await test.request(.patch, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey),
                                         json: ["subscription": ["token": .string(token.lowercased())]])
        #expect(changed.status == 200, "\(changed.text)")
        #expect(changed.json?.objectValue?["token"] == .string(token.lowercased()))

        let fireOS = await test.request(.post, path, headers: .restKey(app.restKey),
                                        json: ["subscription": ["type": "FireOSPush", "token": "adm"]])
        #expect(fireOS.status == 400)
        #expect(fireOS.json?.objectValue?["errors"]?.arrayValue?.first?.stringValue?.contains("FireOSPush") == true)
    }

    @Test func liveActivityRoutesRefuseAnAndroidDeviceSayingWhy() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Self.fcmToken("la")
        _ = try await app.deviceID(created, Self.android(token))
        _ = try await app.deviceID(created, ["token": .string(Registry.token(5))])
        let base = "/v1/apps/\(created.app.id)/live-activities"
        let headers = HTTPHeaders.sdkKey(created.sdkKey)
        let hex = String(repeating: "ab", count: 32)

        let register = await app.request(.post, base, headers: headers, json: [
            "token": .string(token), "activity_id": "order-1", "update_token": .string(hex),
        ])
        #expect(register.status == 404)
        #expect(Self.detail(register)?.contains("Android device: Live Activities are Apple-only") == true)
        let pushToStart = await app.request(.post, base + "/push-to-start", headers: headers, json: [
            "token": .string(token), "activity_type": "Delivery", "push_to_start_token": .string(hex),
        ])
        #expect(pushToStart.status == 404)
        #expect(Self.detail(pushToStart)?.contains("Android device") == true)
        let remove = await app.request(.post, base + "/push-to-start/remove", headers: headers,
                                       json: ["token": .string(token), "activity_type": "Delivery"])
        #expect(remove.status == 404)
        #expect(Self.detail(remove)?.contains("Android device") == true)
        let end = await app.request(.post, base + "/order-1/end", headers: headers, json: ["token": .string(token)])
        #expect(end.status == 404)
        #expect(Self.detail(end)?.contains("Android device") == true)
        let rows = try await app.services.database.query("""
            SELECT (SELECT count(*) FROM live_activities)::int AS activities, (SELECT count(*) FROM push_to_start_tokens)::int AS starts
            """)[0]
        #expect(try rows.decode("activities", as: Int.self) == 0 && rows.decode("starts", as: Int.self) == 0)

        // The Apple device of the same app is unaffected.
        let apple = await app.request(.post, base, headers: headers, json: [
            "token": .string(Registry.token(5)), "activity_id": "order-1", "update_token": .string(hex),
        ])
        #expect(apple.status == 200, "\(apple.text)")
    }

    @Test func exportsAndOutcomesCountAndroidAsDeviceType1() {
        #expect(OneSignalDeviceType.of(platform: "android") == 1)
        #expect(OneSignalDeviceType.of(platform: "ios") == 0)
        #expect(OneSignalDeviceType.of(platform: "macos") == 9)
        #expect(OutcomeQuery.platformsByDeviceType[1] == ["android"])
    }
}
