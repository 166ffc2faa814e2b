import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /v1/apps/{app_id}/subscriptions/tokens` and `…/tokens/remove`: a device's extra tokens
/// (VoIP and the other PushKit-style kinds), one per kind, and the views that list their kinds.
@Suite struct ExtraTokenRoutesTests {
    static let kinds = ["voip", "location", "pushtotalk", "complication", "fileprovider"]

    /// A distinct even-length hex token per seed (upper-case, to see it stored lower-cased).
    static func pushToken(_ seed: Int, length: Int = 64) -> String {
        let hex = String(seed, radix: 16, uppercase: true)
        return String(repeating: "B", count: length - hex.count) + hex
    }

    static func register(_ app: TestApp, _ created: CreatedApp, _ body: JSONObject, key: String? = nil) async -> TestResponse {
        await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/tokens", headers: .sdkKey(key ?? created.sdkKey),
                          json: .object(body))
    }

    static func remove(_ app: TestApp, _ created: CreatedApp, _ body: JSONObject) async -> TestResponse {
        await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/tokens/remove", headers: .sdkKey(created.sdkKey),
                          json: .object(body))
    }

    /// `body` with `key` set to `value` (removed when nil).
    static func with(_ body: JSONObject, _ key: String, _ value: JSONValue?) -> JSONObject {
        var changed = body
        changed[key] = value
        return changed
    }

    static func detail(_ response: TestResponse) -> String? { response.json?.objectValue?["detail"]?.stringValue }

    /// kind → token of the device's rows.
    static func stored(_ app: TestApp, subscriptionID: String) async throws -> [String: String] {
        let rows = try await app.services.database.query(
            "SELECT kind, token, app_id FROM device_push_tokens WHERE subscription_id = \(subscriptionID)")
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("kind", as: String.self), try $0.decode("token", as: String.self)) })
    }

    @Test func eachKindIsRegisteredThenReplacedThenRemoved() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(1)
        let id = try await app.deviceID(created, ["token": .string(token)])

        for (index, kind) in Self.kinds.enumerated() {
            // The ordinary token in another case still names the device, as on the other /v1 routes.
            let response = await Self.register(app, created, [
                "token": .string(index == 0 ? token.uppercased() : token), "kind": .string(kind),
                "push_token": .string(Self.pushToken(index)),
            ])
            #expect(response.status == 201, "\(kind): \(response.text)")
            let body = try #require(response.json?.objectValue)
            #expect(body["created"] == true)
            #expect(body["kind"] == .string(kind))
            #expect(body["subscription_id"] == .string(id))
            #expect(body["app"] == .string(created.app.id))
        }
        let first = try await Self.stored(app, subscriptionID: id)
        #expect(first == Dictionary(uniqueKeysWithValues: Self.kinds.enumerated().map { ($1, Self.pushToken($0).lowercased()) }))

        // Replacing keeps one row of the kind, with the new value.
        let replaced = await Self.register(app, created, [
            "token": .string(token), "kind": "voip", "push_token": .string(Self.pushToken(99, length: 16)),
        ])
        #expect(replaced.status == 200, "\(replaced.text)")
        #expect(replaced.json?.objectValue?["created"] == false)
        #expect(replaced.json?.objectValue?["push_token_kinds"] == ["complication", "fileprovider", "location", "pushtotalk", "voip"])
        #expect(try await Self.stored(app, subscriptionID: id)["voip"] == Self.pushToken(99, length: 16).lowercased())

        let removed = await Self.remove(app, created, ["token": .string(token), "kind": "voip"])
        #expect(removed.status == 200, "\(removed.text)")
        #expect(removed.json?.objectValue?["ok"] == true)
        #expect(removed.json?.objectValue?["push_token_kinds"] == ["complication", "fileprovider", "location", "pushtotalk"])
        #expect(try await Self.stored(app, subscriptionID: id)["voip"] == nil)
        #expect(try await Self.stored(app, subscriptionID: id).count == 4)

        let again = await Self.remove(app, created, ["token": .string(token), "kind": "voip"])
        #expect(again.status == 404)
        #expect(Self.detail(again) == "no voip token on this device")
    }

    /// A token refresh (`previous_token`) supersedes the device's subscription: its extra tokens
    /// come along, except a kind the new subscription already holds (its own is newer).
    @Test func aTokenRefreshTakesTheDevicesExtraTokensAlong() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let first = Registry.token(0x51)
        let firstID = try await app.deviceID(created, ["token": .string(first)])
        for (seed, kind) in [(1, "voip"), (2, "location")] {
            let response = await Self.register(app, created, ["token": .string(first), "kind": .string(kind),
                                                              "push_token": .string(Self.pushToken(seed))])
            try #require(response.status == 201, "\(response.text)")
        }
        let second = Registry.token(0x52)
        let secondID = try await app.deviceID(created, ["token": .string(second), "previous_token": .string(first)])
        #expect(secondID != firstID)
        #expect(try await Self.stored(app, subscriptionID: secondID)
                == ["voip": Self.pushToken(1).lowercased(), "location": Self.pushToken(2).lowercased()])
        #expect(try await Self.stored(app, subscriptionID: firstID).isEmpty)
        #expect(await app.subscription(created, secondID).json?.objectValue?["push_token_kinds"] == ["location", "voip"])

        // A device that registered its own VoIP token first keeps it, and takes the others.
        let third = Registry.token(0x53)
        let thirdID = try await app.deviceID(created, ["token": .string(third)])
        _ = await Self.register(app, created, ["token": .string(third), "kind": "voip", "push_token": .string(Self.pushToken(3))])
        #expect(try await app.deviceID(created, ["token": .string(third), "previous_token": .string(second)]) == thirdID)
        #expect(try await Self.stored(app, subscriptionID: thirdID)
                == ["voip": Self.pushToken(3).lowercased(), "location": Self.pushToken(2).lowercased()])
        #expect(try await Self.stored(app, subscriptionID: secondID).isEmpty)
    }

    @Test func theViewsListTheKindsADeviceHoldsNeverTheTokens() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(2)
        let id = try await app.deviceID(created, ["token": .string(token), "external_id": "u-kinds"])
        let bare = try await app.deviceID(created, ["token": .string(Registry.token(3)), "external_id": "u-kinds"])
        #expect(await app.subscription(created, id).json?.objectValue?["push_token_kinds"] == [])

        for kind in ["voip", "complication"] {
            let response = await Self.register(app, created, ["token": .string(token), "kind": .string(kind),
                                                              "push_token": .string(Self.pushToken(7))])
            try #require(response.status == 201, "\(response.text)")
        }
        let view = await app.subscription(created, id)
        #expect(view.json?.objectValue?["push_token_kinds"] == ["complication", "voip"])
        #expect(!view.text.lowercased().contains(Self.pushToken(7).lowercased()))
        #expect(await app.subscription(created, bare).json?.objectValue?["push_token_kinds"] == [])

        // The user's devices, OneSignal's shape with OpenPush's own fields after it.
        let user = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/u-kinds", headers: .restKey(created.restKey))
        #expect(user.status == 200, "\(user.text)")
        let devices = try #require(user.json?.objectValue?["subscriptions"]?.arrayValue).compactMap(\.objectValue)
        let byID = Dictionary(uniqueKeysWithValues: devices.map { ($0["id"]?.stringValue ?? "", $0) })
        #expect(byID[id]?["push_token_kinds"] == ["complication", "voip"])
        #expect(byID[bare]?["push_token_kinds"] == [])
        #expect(!user.text.lowercased().contains(Self.pushToken(7).lowercased()))
    }

    @Test func wrongBodiesAre400NamingTheField() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(4)
        let id = try await app.deviceID(created, ["token": .string(token)])
        let valid: JSONObject = ["token": .string(token), "kind": "voip", "push_token": .string(Self.pushToken(1))]
        let cases: [(JSONObject, String)] = [
            (Self.with(valid, "kind", "mdm"), "kind must be one of: voip, location, pushtotalk, complication, fileprovider"),
            (Self.with(valid, "kind", "VoIP"), "kind must be one of"),
            (Self.with(valid, "kind", 3), "kind must be a string"),
            (Self.with(valid, "kind", nil), "kind is required"),
            (Self.with(valid, "push_token", nil), "push_token is required"),
            (Self.with(valid, "push_token", "xyz0"), "push_token must be hexadecimal"),
            (Self.with(valid, "push_token", .string(String(repeating: "a", count: 33))), "push_token must have an even number"),
            (Self.with(valid, "push_token", .string(String(repeating: "a", count: 14))), "push_token must be 16–512 characters, got 14"),
            (Self.with(valid, "push_token", .string(String(repeating: "a", count: 514))), "push_token must be 16–512 characters, got 514"),
            (Self.with(valid, "push_token", 12), "push_token must be a string"),
            (Self.with(valid, "token", nil), "token is required"),
        ]
        for (body, message) in cases {
            let response = await Self.register(app, created, body)
            #expect(response.status == 400, "\(body): \(response.text)")
            #expect(Self.detail(response)?.contains(message) == true, "\(body): \(response.text)")
        }
        for (body, message) in [(["token": .string(token)], "kind is required"),
                                (["token": .string(token), "kind": "sms"], "kind must be one of"),
                                (["kind": "voip"], "token is required")] as [(JSONObject, String)] {
            let response = await Self.remove(app, created, body)
            #expect(response.status == 400, "\(body): \(response.text)")
            #expect(Self.detail(response)?.contains(message) == true, "\(body): \(response.text)")
        }
        #expect(try await Self.stored(app, subscriptionID: id).isEmpty)
        // The smallest and largest lengths are taken.
        for length in [16, 512] {
            let response = await Self.register(app, created, Self.with(valid, "push_token", .string(Self.pushToken(1, length: length))))
            #expect(response.status < 300, "\(length): \(response.text)")
        }
    }

    @Test func anUnknownOrRetiredDeviceIs404() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let unknown = await Self.register(app, created, ["token": .string(Registry.token(5)), "kind": "voip",
                                                         "push_token": .string(Self.pushToken(1))])
        #expect(unknown.status == 404)
        #expect(Self.detail(unknown) == "unknown device token for this app")
        let removal = await Self.remove(app, created, ["token": .string(Registry.token(5)), "kind": "voip"])
        #expect(removal.status == 404)
        #expect(Self.detail(removal) == "unknown device token for this app")

        let retired = Registry.token(6)
        _ = try await app.deviceID(created, ["token": .string(retired)])
        let retire = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions/retire", headers: .sdkKey(created.sdkKey),
                                       json: ["token": .string(retired)])
        try #require(retire.status == 200)
        let afterRetire = await Self.register(app, created, ["token": .string(retired), "kind": "voip",
                                                             "push_token": .string(Self.pushToken(1))])
        #expect(afterRetire.status == 404)
        let count = try await app.services.database.query("SELECT count(*)::int AS n FROM device_push_tokens")[0]
        #expect(try count.decode("n", as: Int.self) == 0)
    }

    @Test func anotherAppsSDKKeyNeverReachesThisAppsDevice() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let token = Registry.token(8)
        let aDevice = try await app.deviceID(a, ["token": .string(token)])
        let body: JSONObject = ["token": .string(token), "kind": "voip", "push_token": .string(Self.pushToken(1))]
        try #require(await Self.register(app, a, body).status == 201)

        // B's key on A's path is refused; on B's own path the token names no device of B's.
        let wrongKey = await Self.register(app, a, Self.with(body, "push_token", .string(Self.pushToken(2))), key: b.sdkKey)
        #expect(wrongKey.status == 401)
        let ownPath = await Self.register(app, b, Self.with(body, "push_token", .string(Self.pushToken(2))))
        #expect(ownPath.status == 404)
        let ownRemove = await Self.remove(app, b, ["token": .string(token), "kind": "voip"])
        #expect(ownRemove.status == 404)
        let wrongRemove = await app.request(.post, "/v1/apps/\(a.app.id)/subscriptions/tokens/remove", headers: .sdkKey(b.sdkKey),
                                            json: ["token": .string(token), "kind": "voip"])
        #expect(wrongRemove.status == 401)
        #expect(try await Self.stored(app, subscriptionID: aDevice) == ["voip": Self.pushToken(1).lowercased()])

        // The same token registered in B is B's own device, with its own kinds.
        let bDevice = try await app.deviceID(b, ["token": .string(token)])
        try #require(await Self.register(app, b, Self.with(body, "kind", "location")).status == 201)
        #expect(try await Self.stored(app, subscriptionID: bDevice) == ["location": Self.pushToken(1).lowercased()])
        #expect(try await Self.stored(app, subscriptionID: aDevice) == ["voip": Self.pushToken(1).lowercased()])
        #expect(await app.subscription(a, aDevice).json?.objectValue?["push_token_kinds"] == ["voip"])
        #expect(await app.subscription(b, bDevice).json?.objectValue?["push_token_kinds"] == ["location"])
    }

    @Test func anAndroidDeviceIsRefusedSayingTheyAreAppleOnly() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = AndroidDeviceRoutesTests.fcmToken("voip")
        let id = try await app.deviceID(created, AndroidDeviceRoutesTests.android(token))
        let register = await Self.register(app, created, ["token": .string(token), "kind": "voip",
                                                          "push_token": .string(Self.pushToken(1))])
        #expect(register.status == 404)
        #expect(Self.detail(register)?.contains("Android device") == true)
        #expect(Self.detail(register)?.contains("Apple-only") == true)
        let remove = await Self.remove(app, created, ["token": .string(token), "kind": "voip"])
        #expect(remove.status == 404)
        #expect(Self.detail(remove)?.contains("Apple-only") == true)
        #expect(try await Self.stored(app, subscriptionID: id).isEmpty)
    }

    @Test func onASharedDemoAppOnlyTheDevicesKeyReachesItsTokens() async throws {
        let app = try await TestApp.make()
        let shared = try await app.createApp(AppSettings(name: "Demo", sharedDemo: true))
        let deviceKey = KeyMaterial.issue(prefix: "dev")
        let token = Registry.token(90)
        let linked = try await app.deviceID(shared, ["token": .string(token)])
        try await app.services.database.transaction { connection in
            try connection.query("INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(shared.app.id), 'AAA')")
            try connection.query("""
                UPDATE subscriptions SET tenant_id = 'ten_a', device_key_digest = \(deviceKey.digest) WHERE id = \(linked)
                """)
        }
        let body: JSONObject = ["token": .string(token), "kind": "pushtotalk", "push_token": .string(Self.pushToken(3))]
        let withoutKey = await Self.register(app, shared, body)
        #expect(withoutKey.status == 401)
        #expect(Self.detail(withoutKey) == NativeDevice.missingDeviceKey)
        #expect(try await Self.stored(app, subscriptionID: linked).isEmpty)

        var headers = HTTPHeaders.sdkKey(shared.sdkKey)
        headers.add(name: "X-OP-Device-Key", value: deviceKey.value)
        let withKey = await app.request(.post, "/v1/apps/\(shared.app.id)/subscriptions/tokens", headers: headers, json: .object(body))
        #expect(withKey.status == 201, "\(withKey.text)")
        let removeWithoutKey = await Self.remove(app, shared, ["token": .string(token), "kind": "pushtotalk"])
        #expect(removeWithoutKey.status == 401)
        #expect(try await Self.stored(app, subscriptionID: linked) == ["pushtotalk": Self.pushToken(3).lowercased()])
    }
}
