import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// OneSignal's user-model subscription routes: `create_subscription`, `transfer_subscription`,
/// `update_subscription_by_token`, and `notification_types` on them and on the `PATCH` by id.
@Suite struct SubscriptionOneSignalRoutesTests {
    static func userPath(_ app: CreatedApp, _ value: String, label: String = "external_id") -> String {
        "/apps/\(app.app.id)/users/by/\(label)/\(value)/subscriptions"
    }

    static func ownerPath(_ app: CreatedApp, _ id: String) -> String { "/apps/\(app.app.id)/subscriptions/\(id)/owner" }

    static func tokenPath(_ app: CreatedApp, _ token: String, type: String = "iOSPush") -> String {
        "/apps/\(app.app.id)/subscriptions_by_token/\(type)/\(token)"
    }

    static func apple(_ token: String, _ extra: JSONObject = [:]) -> JSONValue {
        var subscription: JSONObject = ["type": "iOSPush", "token": .string(token)]
        for (key, value) in extra { subscription[key] = value }
        return ["subscription": .object(subscription)]
    }

    static func user(_ test: TestApp, _ app: CreatedApp, _ identity: JSONObject) async throws {
        let response = await test.request(.post, "/apps/\(app.app.id)/users", headers: .restKey(app.restKey),
                                          json: ["identity": .object(identity)])
        try #require(response.status == 201, "\(response.text)")
    }

    static func deviceIDs(_ test: TestApp, _ app: CreatedApp, externalID: String) async -> [String] {
        let user = await test.request(.get, "/apps/\(app.app.id)/users/by/external_id/\(externalID)", headers: .restKey(app.restKey))
        return user.json?.objectValue?["subscriptions"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } ?? []
    }

    @Test func createAnswers201AndARegisteredTokenMovesKeepingItsID() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        try await Self.user(test, app, ["external_id": "u-a"])
        try await Self.user(test, app, ["external_id": "u-b", "crm": "b-1"])
        let token = Registry.token(0xc1)
        let created = await test.request(.post, Self.userPath(app, "u-a"), headers: .restKey(app.restKey),
                                         json: Self.apple(token.uppercased(), ["enabled": true, "notification_types": 1,
                                                                              "device_model": "iPhone16,1", "sdk": "050210"]))
        #expect(created.status == 201)
        let view = try #require(created.json?.objectValue?["subscription"]?.objectValue)
        let id = try #require(view["id"]?.stringValue)
        #expect(view["type"] == "iOSPush")
        #expect(view["token"] == .string(token))
        #expect(view["enabled"] == true)
        #expect(view["notification_types"] == 1)
        #expect(view["device_model"] == "iPhone16,1")
        #expect(view["sdk"] == "050210")
        #expect(view["session_time"] == nil)  // not reported: left out, never null
        #expect(await Self.deviceIDs(test, app, externalID: "u-a") == [id])

        // The same token for another user, named by a custom alias: the device moves, same id.
        let moved = await test.request(.post, Self.userPath(app, "b-1", label: "crm"), headers: .restKey(app.restKey),
                                       json: Self.apple(token))
        #expect(moved.status == 200)
        #expect(moved.json?.objectValue?["subscription"]?.objectValue?["id"] == .string(id))
        #expect(await Self.deviceIDs(test, app, externalID: "u-a") == [])
        #expect(await Self.deviceIDs(test, app, externalID: "u-b") == [id])
        let row = try #require(await test.subscription(app, id).json?.objectValue)
        #expect(row["external_id"] == "u-b")
        #expect(row["device_model"] == "iPhone16,1")

        // A device the SDK registered, then deleted, comes back under its id for the user.
        let native = try await test.deviceID(app, ["token": .string(Registry.token(0xc2)), "platform": "watchos"])
        #expect(await test.request(.delete, "/apps/\(app.app.id)/subscriptions/\(native)", headers: .restKey(app.restKey)).status == 200)
        let revived = await test.request(.post, Self.userPath(app, "u-a"), headers: .restKey(app.restKey),
                                         json: Self.apple(Registry.token(0xc2)))
        #expect(revived.status == 200)
        #expect(revived.json?.objectValue?["subscription"]?.objectValue?["id"] == .string(native))
        let revivedRow = try #require(await test.subscription(app, native).json?.objectValue)
        #expect(revivedRow["retired"] == false)
        #expect(revivedRow["platform"] == "watchos")
        #expect(await Self.deviceIDs(test, app, externalID: "u-a") == [native])
    }

    @Test func createRefusesOtherTypesBadBodiesAndUsersItCannotLinkTo() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        try await Self.user(test, app, ["external_id": "u-a"])
        try await Self.user(test, app, ["crm": "no-external"])
        let path = Self.userPath(app, "u-a")
        let fireOS = await test.request(.post, path, headers: .restKey(app.restKey),
                                        json: ["subscription": ["type": "FireOSPush", "token": "adm-token"]])
        #expect(fireOS.status == 400)
        #expect(fireOS.json == ["errors": ["subscription.type 'FireOSPush' is not supported: OpenPush reaches Android devices through Firebase Cloud Messaging only (AndroidPush), not Amazon's or Huawei's push services; it supports iOSPush, macOSPush, AndroidPush, ChromePush, FirefoxPush, SafariPush, EdgePush"]])
        let email = await test.request(.post, path, headers: .restKey(app.restKey),
                                       json: ["subscription": ["type": "Email", "token": "a@example.com"]])
        #expect(email.status == 400)
        #expect(email.json?.objectValue?["errors"]?.arrayValue?.first?.stringValue?.contains("to browsers through Web Push only") == true)
        let disagree = await test.request(.post, path, headers: .restKey(app.restKey),
                                          json: Self.apple(Registry.token(1), ["enabled": true, "notification_types": -2]))
        #expect(disagree.status == 400)
        #expect(disagree.json == ["errors": ["subscription.enabled (true) and notification_types (-2) disagree: notification_types above 0 is subscribed, 0 or below is not"]])
        let bounds = await test.request(.post, path, headers: .restKey(app.restKey),
                                        json: Self.apple("zz", ["notification_types": -100, "colour": "red"]))
        #expect(bounds.status == 400)
        #expect(bounds.json == ["errors": ["subscription.token must be 16 to 512 hex characters, got 2",
                                           "subscription.notification_types must be an integer from -99 to 2147483647",
                                           "unknown field 'subscription.colour'"]])
        let missing = await test.request(.post, path, headers: .restKey(app.restKey), json: ["subscription": ["token": .string(Registry.token(1))]])
        #expect(missing.json == ["errors": ["subscription.type is required"]])

        let nobody = await test.request(.post, Self.userPath(app, "u-nobody"), headers: .restKey(app.restKey),
                                        json: Self.apple(Registry.token(1)))
        #expect(nobody.status == 404)
        #expect(nobody.json == ["errors": ["user not found"]])
        let unlinked = await test.request(.post, Self.userPath(app, "no-external", label: "crm"), headers: .restKey(app.restKey),
                                          json: Self.apple(Registry.token(1)))
        #expect(unlinked.status == 409)
        // Nothing was stored by any of them.
        let count: Int = try await test.services.database.query("""
            SELECT count(*)::int AS n FROM subscriptions WHERE app_id = \(app.app.id)
            """).firstRow().decode("n")
        #expect(count == 0)
    }

    @Test func updateTakesOneSignalsSubscriptionObject() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        let token = Registry.token(0xd1)
        let id = try await test.deviceID(app, ["token": .string(token), "app_version": "1.0"])
        let path = "/apps/\(app.app.id)/subscriptions/\(id)"
        let whole = await test.request(.patch, path, headers: .restKey(app.restKey), json: Self.apple(token, [
            "id": .string(id), "notification_types": -2, "app_version": "2.0", "device_os": "18.1", "session_time": 60,
            "session_count": 3, "sdk": "050210", "rooted": false, "net_type": 0, "carrier": "", "test_type": 1]))
        #expect(whole.status == 200)
        let view = try #require(whole.json?.objectValue)
        #expect(view["enabled"] == false)
        #expect(view["notification_types"] == -2)
        #expect(view["app_version"] == "2.0")
        #expect(view["device_os"] == "18.1")
        #expect(view["environment"] == "sandbox")
        // Kept for OneSignal's subscription object (create_subscription's answer, the user's devices).
        let kept = try await test.services.database.query("SELECT sdk, session_time FROM subscriptions WHERE id = \(id)").firstRow()
        #expect(try kept.decode("sdk", as: String?.self) == "050210")
        #expect(try kept.decode("session_time", as: Int64?.self) == 60)
        let back = await test.request(.patch, path, headers: .restKey(app.restKey), json: ["subscription": ["notification_types": 1]])
        #expect(back.json?.objectValue?["enabled"] == true)

        let changed = await test.request(.patch, path, headers: .restKey(app.restKey), json: [
            "subscription": ["id": "sub_other", "type": "macOSPush", "token": .string(Registry.token(0xd2)), "enabled": false]])
        #expect(changed.status == 400)
        #expect(changed.json == ["errors": [
            "subscription.id 'sub_other' is not this subscription's id",
            "subscription.type cannot change: this subscription is iOSPush"]])
        #expect(await test.subscription(app, id).json?.objectValue?["enabled"] == true)
    }

    @Test func transferMovesTheDeviceAndAnswersTheNewOwnersIdentity() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        try await Self.user(test, app, ["external_id": "u-b", "crm": "b-1"])
        try await Self.user(test, app, ["crm": "no-external"])
        let id = try await test.deviceID(app, ["token": .string(Registry.token(0xe1)), "external_id": "u-a"])
        let moved = await test.request(.patch, Self.ownerPath(app, id), headers: .restKey(app.restKey),
                                       json: ["identity": ["crm": "b-1"]])
        #expect(moved.status == 200)
        let identity = try #require(moved.json?.objectValue?["identity"]?.objectValue)
        #expect(identity["external_id"] == "u-b")
        #expect(identity["crm"] == "b-1")
        #expect(identity["onesignal_id"]?.stringValue?.hasPrefix("usr_") == true)
        #expect(await Self.deviceIDs(test, app, externalID: "u-b") == [id])
        #expect(await Self.deviceIDs(test, app, externalID: "u-a") == [])
        // By the user's own id, as OneSignal's onesignal_id.
        let userA = await test.request(.get, "/apps/\(app.app.id)/users/by/external_id/u-a", headers: .restKey(app.restKey))
        let userAID = try #require(userA.json?.objectValue?["identity"]?.objectValue?["onesignal_id"]?.stringValue)
        let back = await test.request(.patch, Self.ownerPath(app, id), headers: .restKey(app.restKey),
                                      json: ["identity": ["onesignal_id": .string(userAID)]])
        #expect(back.status == 200)
        #expect(await Self.deviceIDs(test, app, externalID: "u-a") == [id])

        let two = await test.request(.patch, Self.ownerPath(app, id), headers: .restKey(app.restKey),
                                     json: ["identity": ["crm": "b-1", "external_id": "u-b"]])
        #expect(two.status == 400)
        #expect(two.json == ["errors": ["identity must hold exactly one alias (label: value) naming the new owner"]])
        let nobody = await test.request(.patch, Self.ownerPath(app, id), headers: .restKey(app.restKey),
                                        json: ["identity": ["external_id": "u-nobody"]])
        #expect(nobody.status == 404)
        #expect(nobody.json == ["errors": ["user not found"]])
        let unlinked = await test.request(.patch, Self.ownerPath(app, id), headers: .restKey(app.restKey),
                                          json: ["identity": ["crm": "no-external"]])
        #expect(unlinked.status == 409)
        #expect(await test.subscription(app, id).json?.objectValue?["external_id"] == "u-a")
        _ = await test.request(.delete, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey))
        let retired = await test.request(.patch, Self.ownerPath(app, id), headers: .restKey(app.restKey),
                                         json: ["identity": ["crm": "b-1"]])
        #expect(retired.status == 404)
        #expect(retired.json == ["errors": [.string("subscription '\(id)' not found")]])
    }

    @Test func updateByTokenAnswersAnObjectAndFindsOnlyALiveDeviceOfThatType() async throws {
        let test = try await TestApp.make()
        let app = try await test.createApp()
        let token = Registry.token(0xf1)
        let id = try await test.deviceID(app, ["token": .string(token)])
        let updated = await test.request(.patch, Self.tokenPath(app, token.uppercased()), headers: .restKey(app.restKey),
                                         json: ["subscription": ["notification_types": -2, "app_version": "3.1"]])
        #expect(updated.status == 200)
        #expect(updated.json == .object([:]))
        let row = try #require(await test.subscription(app, id).json?.objectValue)
        #expect(row["enabled"] == false)
        #expect(row["app_version"] == "3.1")

        let macOS = await test.request(.patch, Self.tokenPath(app, token, type: "macOSPush"), headers: .restKey(app.restKey),
                                       json: ["subscription": ["enabled": true]])
        #expect(macOS.status == 404)
        #expect(macOS.json == ["errors": ["no macOSPush subscription with this token"]])
        let unknown = await test.request(.patch, Self.tokenPath(app, Registry.token(0xf2)), headers: .restKey(app.restKey),
                                         json: ["subscription": ["enabled": true]])
        #expect(unknown.status == 404)
        // An Apple device's token is no Android device's.
        let android = await test.request(.patch, Self.tokenPath(app, token, type: "AndroidPush"), headers: .restKey(app.restKey),
                                         json: ["subscription": ["enabled": true]])
        #expect(android.status == 404)
        let empty = await test.request(.patch, Self.tokenPath(app, token), headers: .restKey(app.restKey), json: ["subscription": [:]])
        #expect(empty.status == 400)
        _ = await test.request(.delete, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey))
        let retired = await test.request(.patch, Self.tokenPath(app, token), headers: .restKey(app.restKey),
                                         json: ["subscription": ["enabled": true]])
        #expect(retired.status == 404)
        #expect(await test.subscription(app, id).json?.objectValue?["enabled"] == false)
    }

    /// Another app's key is `401` on every new route; this app's key naming another app's device,
    /// token or user reaches nothing there (`404`, or a new device of its own app).
    @Test func anotherAppsKeyOrObjectsNeverCross() async throws {
        let test = try await TestApp.make()
        let a = try await test.createApp()
        let b = try await test.createApp()
        try await Self.user(test, a, ["external_id": "u-a"])
        try await Self.user(test, b, ["external_id": "u-b"])
        let bToken = Registry.token(0xb1)
        let bDevice = try await test.deviceID(b, ["token": .string(bToken), "external_id": "u-b"])
        let aDevice = try await test.deviceID(a, ["token": .string(Registry.token(0xa1)), "external_id": "u-a"])

        let crossed: [(HTTPMethod, String, JSONValue)] = [
            (.post, Self.userPath(a, "u-a"), Self.apple(Registry.token(0xa2))),
            (.patch, Self.ownerPath(a, aDevice), ["identity": ["external_id": "u-a"]]),
            (.patch, Self.tokenPath(a, Registry.token(0xa1)), ["subscription": ["enabled": false]]),
        ]
        for (method, path, body) in crossed {
            let response = await test.request(method, path, headers: .restKey(b.restKey), json: body)
            #expect(response.status == 401)
            #expect(response.json == ["errors": [.string(Authentication.badRESTKey)]])
        }
        let foreignDevice = await test.request(.patch, Self.ownerPath(a, bDevice), headers: .restKey(a.restKey),
                                               json: ["identity": ["external_id": "u-a"]])
        #expect(foreignDevice.status == 404)
        let foreignToken = await test.request(.patch, Self.tokenPath(a, bToken), headers: .restKey(a.restKey),
                                              json: ["subscription": ["enabled": false]])
        #expect(foreignToken.status == 404)
        let foreignUser = await test.request(.post, Self.userPath(a, "u-b"), headers: .restKey(a.restKey), json: Self.apple(bToken))
        #expect(foreignUser.status == 404)
        // B's token for A's user is a device of A; B's device keeps its id, user and state.
        let sameToken = await test.request(.post, Self.userPath(a, "u-a"), headers: .restKey(a.restKey), json: Self.apple(bToken))
        #expect(sameToken.status == 201)
        #expect(sameToken.json?.objectValue?["subscription"]?.objectValue?["id"] != .string(bDevice))
        let untouched = try #require(await test.subscription(b, bDevice).json?.objectValue)
        #expect(untouched["external_id"] == "u-b")
        #expect(untouched["enabled"] == true)
        #expect(untouched["retired"] == false)
        #expect(await Self.deviceIDs(test, b, externalID: "u-b") == [bDevice])
        #expect(await test.subscription(a, aDevice).json?.objectValue?["enabled"] == true)
    }
    /// On a shared demo app a tenant's key may not create or move devices (a device it named could
    /// be another tenant's), and changes by token only a device linked to it.
    @Test func aTenantKeyNeitherCreatesNorMovesAndChangesOnlyItsOwnDeviceByToken() async throws {
        let test = try await TestApp.make()
        let shared = try await test.createApp(AppSettings(name: "Demo", sharedDemo: true))
        try await Self.user(test, shared, ["external_id": "u-t"])
        let mineToken = Registry.token(0x1a), theirsToken = Registry.token(0x1b)
        let mine = try await test.deviceID(shared, ["token": .string(mineToken), "external_id": "u-t"])
        let theirs = try await test.deviceID(shared, ["token": .string(theirsToken)])
        let key = KeyMaterial.issue(prefix: "rest")
        let appID = shared.app.id
        try await test.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(appID), 'AAA'), ('ten_b', \(appID), 'BBB')
                """)
            try connection.query("""
                INSERT INTO api_keys (id, app_id, tenant_id, name, digest) VALUES ('key_ta', \(appID), 'ten_a', 'a', \(key.digest))
                """)
            try connection.query("UPDATE subscriptions SET tenant_id = 'ten_a' WHERE id = \(mine)")
            try connection.query("UPDATE subscriptions SET tenant_id = 'ten_b' WHERE id = \(theirs)")
        }
        let tenantMessage = "a tenant's key cannot create or move subscriptions on a shared demo app; use the app's REST key"
        let create = await test.request(.post, Self.userPath(shared, "u-t"), headers: .restKey(key.value),
                                        json: Self.apple(theirsToken))
        #expect(create.status == 403)
        #expect(create.json == ["errors": [.string(tenantMessage)]])
        let move = await test.request(.patch, Self.ownerPath(shared, theirs), headers: .restKey(key.value),
                                      json: ["identity": ["external_id": "u-t"]])
        #expect(move.status == 403)
        let foreign = await test.request(.patch, Self.tokenPath(shared, theirsToken), headers: .restKey(key.value),
                                         json: ["subscription": ["enabled": false]])
        #expect(foreign.status == 403)
        #expect(foreign.json == ["errors": [.string("subscription '\(theirs)' belongs to another tenant of this app")]])
        let own = await test.request(.patch, Self.tokenPath(shared, mineToken), headers: .restKey(key.value),
                                     json: ["subscription": ["enabled": false]])
        #expect(own.status == 200)
        let theirsRow = try #require(await test.subscription(shared, theirs).json?.objectValue)
        #expect(theirsRow["enabled"] == true)
        #expect(theirsRow["external_id"] == .null)
        #expect(await test.subscription(shared, mine).json?.objectValue?["enabled"] == false)
    }
}
