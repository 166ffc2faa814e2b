import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// `get_aliases`, and the aliases of a subscription's user (`get_aliases_by_subscription`,
/// `create_alias_by_subscription`).
@Suite struct UserIdentityTests {
    static func bySubscription(_ app: CreatedApp, _ id: String) -> String {
        "/apps/\(app.app.id)/subscriptions/\(id)/user/identity"
    }

    static func userID(_ response: TestResponse) -> String? {
        response.json?.objectValue?["identity"]?.objectValue?["openpush_id"]?.stringValue
    }

    @Test func getAliasesAnswersTheIdentity() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        let made = await app.request(.post, "/apps/\(created.app.id)/users", headers: key,
                                     json: ["identity": ["external_id": "u-1", "crm": "42"]])
        let userID = try #require(Self.userID(made))
        let identity: JSONValue = ["identity": ["crm": "42", "external_id": "u-1", "onesignal_id": .string(userID),
                                                "openpush_id": .string(userID)]]
        for label in ["external_id/u-1", "crm/42", "onesignal_id/\(userID)"] {
            let shown = await app.request(.get, "/apps/\(created.app.id)/users/by/\(label)/identity", headers: key)
            #expect(shown.status == 200)
            #expect(shown.json == identity)
        }
        let missing = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/nobody/identity", headers: key)
        #expect(missing.status == 404)
        #expect(missing.json == ["errors": ["user not found"]])
    }

    @Test func aSubscriptionsUserGetsTheAliases() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        let device = try await app.deviceID(created, ["token": .string(Registry.token(1)), "external_id": "u-1"])
        let shown = await app.request(.get, Self.bySubscription(created, device), headers: key)
        #expect(shown.status == 200)
        let userID = try #require(Self.userID(shown))
        #expect(shown.json == ["identity": ["external_id": "u-1", "onesignal_id": .string(userID), "openpush_id": .string(userID)]])

        let added = await app.request(.patch, Self.bySubscription(created, device), headers: key, json: ["identity": ["crm": "7"]])
        #expect(added.status == 200)
        #expect(added.json == ["identity": ["crm": "7", "external_id": "u-1", "onesignal_id": .string(userID),
                                            "openpush_id": .string(userID)]])
        let byAlias = await app.request(.get, "/apps/\(created.app.id)/users/by/crm/7", headers: key)
        #expect(Self.userID(byAlias) == userID)
        let changed = await app.request(.patch, Self.bySubscription(created, device), headers: key,
                                        json: ["identity": ["external_id": "u-2"]])
        #expect(changed.status == 409)
        #expect(changed.json == ["errors": ["this user's external_id is already 'u-1' and cannot change"]])
        let bad = await app.request(.patch, Self.bySubscription(created, device), headers: key, json: ["identity": [:]])
        #expect(bad.json == ["errors": ["identity must hold at least one alias"]])
    }

    /// OneSignal gives every subscription a user; OpenPush makes one when aliases are added to a
    /// device without a user, named by the `external_id` the device then carries.
    @Test func aDeviceWithoutAUserGetsOneFromItsAliases() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        let device = try await app.deviceID(created, ["token": .string(Registry.token(1))])
        _ = try await app.deviceID(created, ["token": .string(Registry.token(2)), "external_id": "taken"])
        let path = Self.bySubscription(created, device)

        let none = await app.request(.get, path, headers: key)
        #expect(none.status == 404)
        #expect(none.json == ["errors": [.string("subscription '\(device)' has no user: it carries no external_id")]])
        let withoutExternalID = await app.request(.patch, path, headers: key, json: ["identity": ["crm": "7"]])
        #expect(withoutExternalID.status == 400)
        #expect(withoutExternalID.json == ["errors": [
            "this subscription has no user: identity must hold external_id, which links it to the user made for it"]])
        let taken = await app.request(.patch, path, headers: key, json: ["identity": ["external_id": "taken"]])
        #expect(taken.status == 409)
        #expect(taken.json == ["errors": ["alias external_id 'taken' belongs to another user"]])
        #expect(await app.subscription(created, device).json?.objectValue?["external_id"] == .null)

        let made = await app.request(.patch, path, headers: key, json: ["identity": ["external_id": "u-new", "crm": "7"]])
        #expect(made.status == 200)
        let userID = try #require(Self.userID(made))
        #expect(made.json == ["identity": ["crm": "7", "external_id": "u-new", "onesignal_id": .string(userID),
                                           "openpush_id": .string(userID)]])
        #expect(await app.subscription(created, device).json?.objectValue?["external_id"] == "u-new")
        let user = await app.request(.get, "/apps/\(created.app.id)/users/by/crm/7", headers: key)
        #expect(user.json?.objectValue?["subscriptions"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [device])
        #expect(await app.request(.get, path, headers: key).json == made.json)
    }

    @Test func anotherAppsKeyOrSubscriptionNeverCrosses() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let aDevice = try await app.deviceID(a, ["token": .string(Registry.token(1)), "external_id": "u-a"])
        let bDevice = try await app.deviceID(b, ["token": .string(Registry.token(2)), "external_id": "u-b"])
        let bLone = try await app.deviceID(b, ["token": .string(Registry.token(3))])
        let identity: JSONValue = ["identity": ["external_id": "x", "crm": "c"]]

        for (method, body) in [(HTTPMethod.get, nil), (.patch, identity as JSONValue?)] {
            let crossedKey = await app.send(method, Self.bySubscription(a, aDevice), headers: .restKey(b.restKey), json: body)
            #expect(crossedKey.status == 401)
            #expect(crossedKey.json == ["errors": [.string(Authentication.badRESTKey)]])
            let crossedIdentity = await app.send(method, "/apps/\(a.app.id)/users/by/external_id/u-a/identity",
                                                 headers: .restKey(b.restKey), json: body)
            #expect(crossedIdentity.status == 401)
            for device in [bDevice, bLone] {
                let crossed = await app.send(method, Self.bySubscription(a, device), headers: .restKey(a.restKey), json: body)
                #expect(crossed.status == 404, "\(method) \(device)")
                #expect(crossed.json == ["errors": [.string("subscription '\(device)' not found")]])
            }
        }
        let bUser = await app.request(.get, "/apps/\(b.app.id)/users/by/external_id/u-b/identity", headers: .restKey(b.restKey))
        #expect(bUser.json?.objectValue?["identity"]?.objectValue?["crm"] == nil)
        #expect(await app.subscription(b, bLone).json?.objectValue?["external_id"] == .null)
        #expect(await app.request(.get, "/apps/\(a.app.id)/users/by/external_id/x", headers: .restKey(a.restKey)).status == 404)
    }
}
