import Crypto
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// OneSignal's `update_subscription` with a `token` that is not the device's: the device keeps
/// its id, tags and user and moves to the new token, checked for its push service as a
/// registration's is (a browser's new endpoint with its new keys); a token another device of the
/// app holds is a `409`; the by-token route still refuses to change the token it names the
/// device by. Nothing of a refused change is stored.
@Suite struct SubscriptionTokenChangeTests {
    static func change(_ test: TestApp, _ app: CreatedApp, _ id: String, _ fields: JSONObject) async -> TestResponse {
        await test.request(.patch, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey),
                           json: ["subscription": .object(fields)])
    }

    static func stored(_ test: TestApp, _ id: String) async throws -> PostgresRow {
        try await test.services.database.query("""
            SELECT token, enabled, token_invalid_at IS NOT NULL AS invalid, web_p256, web_auth, web_type
            FROM subscriptions WHERE id = \(id)
            """).firstRow()
    }

    @Test func anAppleDeviceMovesToANewTokenKeepingItsIDAndTags() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        let other = try await test.createApp()
        let id = try await test.deviceID(app, ["token": .string(Registry.token(0xa1)), "external_id": "u-1", "tags": ["plan": "pro"]])
        let neighbour = try await test.deviceID(app, ["token": .string(Registry.token(0xa2))])
        // An earlier push found the old token dead: the new one is reachable again.
        try await test.services.database.query("UPDATE subscriptions SET token_invalid_at = now() WHERE id = \(id)")

        let newToken = Registry.token(0xb1)
        let moved = await Self.change(test, app, id, ["type": "iOSPush", "token": .string(newToken.uppercased()), "app_version": "2.0"])
        #expect(moved.status == 200, "\(moved.text)")
        let view = try #require(moved.json?.objectValue)
        #expect(view["id"] == .string(id))
        #expect(view["token"] == .string(newToken))
        #expect(view["tags"] == ["plan": "pro"] && view["external_id"] == "u-1" && view["app_version"] == "2.0")
        let row = try await Self.stored(test, id)
        #expect(try row.decode("token", as: String.self) == newToken)
        #expect(try row.decode("invalid", as: Bool.self) == false)
        // The old token names no device now; the new one does, on every route that finds one by it.
        let byOld = await test.request(.patch, "/apps/\(app.app.id)/subscriptions_by_token/iOSPush/\(Registry.token(0xa1))",
                                       headers: .restKey(app.restKey), json: ["subscription": ["enabled": false]])
        #expect(byOld.status == 404)
        let byNew = await test.request(.patch, "/apps/\(app.app.id)/subscriptions_by_token/iOSPush/\(newToken)",
                                       headers: .restKey(app.restKey), json: ["subscription": ["app_version": "3.0"]])
        #expect(byNew.status == 200, "\(byNew.text)")
        #expect(await test.subscription(app, id).json?.objectValue?["app_version"] == "3.0")

        // Its own token again, in any case, changes nothing of the token.
        let same = await Self.change(test, app, id, ["token": .string(newToken.uppercased()), "enabled": false])
        #expect(same.status == 200)
        #expect(try await Self.stored(test, id).decode("token", as: String.self) == newToken)

        // Another app's key does not reach it.
        let foreign = await test.request(.patch, "/apps/\(other.app.id)/subscriptions/\(id)", headers: .restKey(other.restKey),
                                         json: ["subscription": ["token": .string(Registry.token(0xc1))]])
        #expect(foreign.status == 404)
        #expect(try await Self.stored(test, id).decode("token", as: String.self) == newToken)
        #expect(try await Self.stored(test, neighbour).decode("token", as: String.self) == Registry.token(0xa2))
    }

    @Test func aBadOrTakenTokenIsRefusedAndNothingOfTheChangeIsStored() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        let other = try await test.createApp()
        let id = try await test.deviceID(app, ["token": .string(Registry.token(0xd1))])
        let holder = Registry.token(0xd2)
        _ = try await test.deviceID(app, ["token": .string(holder)])
        // The same token in another app is no conflict.
        let elsewhere = Registry.token(0xd3)
        _ = try await test.deviceID(other, ["token": .string(elsewhere)])

        let bad = await Self.change(test, app, id, ["token": "not-hex", "enabled": false])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["subscription.token must be 16 to 512 hex characters, got 7"]])
        let taken = await Self.change(test, app, id, ["token": .string(holder.uppercased()), "enabled": false])
        #expect(taken.status == 409)
        #expect(taken.json == ["errors": ["subscription.token is already another subscription's token in this app"]])
        // A retired device still holds its token.
        let retired = Registry.token(0xd4)
        let retiredID = try await test.deviceID(app, ["token": .string(retired)])
        _ = await test.request(.delete, "/apps/\(app.app.id)/subscriptions/\(retiredID)", headers: .restKey(app.restKey))
        #expect(await Self.change(test, app, id, ["token": .string(retired)]).status == 409)
        let row = try await Self.stored(test, id)
        #expect(try row.decode("token", as: String.self) == Registry.token(0xd1))
        #expect(try row.decode("enabled", as: Bool.self))

        let moved = await Self.change(test, app, id, ["token": .string(elsewhere)])
        #expect(moved.status == 200, "\(moved.text)")

        // The route that names the device by its token does not change it.
        let byToken = await test.request(.patch, "/apps/\(app.app.id)/subscriptions_by_token/iOSPush/\(elsewhere)",
                                         headers: .restKey(app.restKey),
                                         json: ["subscription": ["token": .string(Registry.token(0xd5))]])
        #expect(byToken.status == 400)
        #expect(byToken.json == ["errors": [.string("subscription.token cannot change on the route that names the device by "
                                                    + "its token: send it to PATCH /apps/{app_id}/subscriptions/{subscription_id}")]])
        #expect(try await Self.stored(test, id).decode("token", as: String.self) == elsewhere)
    }

    @Test func anAndroidDeviceKeepsItsNewTokenAsSent() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        let id = try await test.deviceID(app, AndroidDeviceRoutesTests.android(AndroidDeviceRoutesTests.fcmToken("old")))
        let newToken = AndroidDeviceRoutesTests.fcmToken("New")
        let moved = await Self.change(test, app, id, ["type": "AndroidPush", "token": .string(newToken)])
        #expect(moved.status == 200, "\(moved.text)")
        #expect(try await Self.stored(test, id).decode("token", as: String.self) == newToken)
        let spaced = await Self.change(test, app, id, ["token": "has a space"])
        #expect(spaced.status == 400)
        #expect(spaced.json == ["errors": ["subscription.token must be printable ASCII without spaces (! to ~)"]])
    }

    @Test func aBrowserMovesToANewEndpointWithItsNewKeys() async throws {
        let test = try await TestApp.make(configure: { $0.webhooksAllowPrivate = false })
        let app = try await test.createApp()
        let id = try await test.deviceID(app, WebSubscriptionRoutesTests.web(WebSubscriptionRoutesTests.endpoints[0].0))
        let firefox = WebSubscriptionRoutesTests.endpoints[1].0
        let pair = try P256KeyPair.generate()
        let newKey = Base64URL.encode(pair.publicKey)
        let newAuth = Base64URL.encode(Array(repeating: 7, count: 16))

        let keyless = await Self.change(test, app, id, ["token": .string(firefox)])
        #expect(keyless.status == 400)
        #expect(keyless.json == ["errors": ["subscription.web_p256 is required", "subscription.web_auth is required"]])
        let unknownHost = await Self.change(test, app, id, ["token": "https://push.example.com/x", "web_p256": .string(newKey),
                                                            "web_auth": .string(newAuth)])
        #expect(unknownHost.status == 400)
        let problem = try #require(unknownHost.json?.objectValue?["errors"]?.arrayValue?.first?.stringValue)
        #expect(problem.hasPrefix("subscription.token must be on a known push service's host"), "\(problem)")
        let offCurve = await Self.change(test, app, id, ["token": .string(firefox), "web_p256": .string("BA" + String(repeating: "A", count: 85)),
                                                         "web_auth": .string(newAuth)])
        #expect(offCurve.status == 400)
        #expect(offCurve.json == ["errors": ["subscription.web_p256 is not a point on the P-256 curve"]])
        #expect(try await WebSubscriptionRoutesTests.storedKeys(test, id)
                == [WebSubscriptionRoutesTests.p256dh, WebSubscriptionRoutesTests.auth, "ChromePush"])

        let moved = await Self.change(test, app, id, ["token": .string(firefox), "web_p256": .string(newKey), "web_auth": .string(newAuth)])
        #expect(moved.status == 200, "\(moved.text)")
        #expect(moved.json?.objectValue?["token"] == .string(firefox))
        #expect(moved.json?.objectValue?["type"] == "FirefoxPush")
        #expect(try await WebSubscriptionRoutesTests.storedKeys(test, id) == [newKey, newAuth, "FirefoxPush"])
    }
}
