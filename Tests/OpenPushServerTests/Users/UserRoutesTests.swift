import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// Users and aliases with the REST key, OneSignal's user model.
@Suite struct UserRoutesTests {
    static func users(_ app: CreatedApp) -> String { "/apps/\(app.app.id)/users" }
    static func user(_ app: CreatedApp, _ label: String, _ value: String) -> String { "/apps/\(app.app.id)/users/by/\(label)/\(value)" }
    static let notFound: JSONValue = ["errors": ["user not found"]]

    @Test func createReturnsTheUserView() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let response = await app.request(.post, Self.users(created), headers: .restKey(created.restKey), json: [
            "identity": ["external_id": "u-1", "crm": "42"],
            "properties": ["tags": ["vip": "1", "none": ""], "language": "de", "timezone_id": "Europe/Berlin"],
        ])
        #expect(response.status == 201)
        let view = try #require(response.json?.objectValue)
        let userID = try #require(view["identity"]?.objectValue?["openpush_id"]?.stringValue)
        #expect(Identifier.isWellFormed(userID, prefix: "usr"))
        #expect(response.json == [
            "identity": ["external_id": "u-1", "crm": "42", "onesignal_id": .string(userID), "openpush_id": .string(userID)],
            "properties": ["tags": ["vip": "1"], "language": "de", "timezone_id": "Europe/Berlin"],
            "subscriptions": [],
        ])
    }

    @Test func everyLabelFindsTheUserAndItsLiveDevices() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let phone = try await app.deviceID(created, ["token": .string(Registry.token(1)), "external_id": "u-1"])
        let watch = try await app.deviceID(created, ["token": .string(Registry.token(2)), "external_id": "u-1", "platform": "watchos"])
        let retired = try await app.deviceID(created, ["token": .string(Registry.token(3)), "external_id": "u-1"])
        _ = await app.request(.delete, "/apps/\(created.app.id)/subscriptions/\(retired)", headers: .restKey(created.restKey))
        _ = try await app.deviceID(other, ["token": .string(Registry.token(4)), "external_id": "u-1"])

        // The registration made the user; creating it with more aliases merges (200).
        let merged = await app.request(.post, Self.users(created), headers: .restKey(created.restKey),
                                       json: ["identity": ["external_id": "u-1", "crm": "42"], "properties": ["tags": ["a": "1"]]])
        #expect(merged.status == 200)
        let view = try #require(merged.json)
        let userID = try #require(view.objectValue?["identity"]?.objectValue?["openpush_id"]?.stringValue)
        let devices = view.objectValue?["subscriptions"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(devices == [phone, watch])
        // Each device in OneSignal's user-model subscription shape, then OpenPush's fields that
        // have a value: never a null (issue 40).
        let phoneView = try #require(await app.subscription(created, phone).json?.objectValue)
        let shown = try #require(view.objectValue?["subscriptions"]?.arrayValue?.first?.objectValue)
        #expect(Array(shown.keys.prefix(6)) == ["id", "type", "token", "enabled", "notification_types", "session_count"])
        #expect(shown == JSONObject(phoneView.filter { $0.value != .null }.map { ($0.key, $0.value) }))
        for (label, value) in [("openpush_id", userID), ("onesignal_id", userID), ("external_id", "u-1"), ("crm", "42"),
                               ("subscription_id", watch)] {
            let found = await app.request(.get, Self.user(created, label, value), headers: .restKey(created.restKey))
            #expect(found.status == 200, "\(label)")
            #expect(found.json == view, "\(label)")
        }
        for (label, value) in [("openpush_id", "usr_nothere"), ("external_id", "u-9"), ("crm", "u-1"), ("subscription_id", "sub_x")] {
            let missing = await app.request(.get, Self.user(created, label, value), headers: .restKey(created.restKey))
            #expect(missing.status == 404)
            #expect(missing.json == Self.notFound)
        }
    }

    @Test func conflictingAliasesAre409() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let post = { (body: JSONValue) in await app.request(.post, Self.users(created), headers: .restKey(created.restKey), json: body) }
        #expect(await post(["identity": ["external_id": "u-1", "crm": "1"]]).status == 201)
        #expect(await post(["identity": ["external_id": "u-2", "crm": "2"]]).status == 201)
        let twoUsers = await post(["identity": ["external_id": "u-1", "crm": "2"]])
        #expect(twoUsers.status == 409)
        #expect(twoUsers.json == ["errors": ["the aliases in identity belong to different users"]])
        let changedExternalID = await post(["identity": ["external_id": "u-3", "crm": "1"]])
        #expect(changedExternalID.status == 409)
        #expect(changedExternalID.json == ["errors": ["this user's external_id is already 'u-1' and cannot change"]])

        let patch = await app.request(.patch, Self.user(created, "external_id", "u-1") + "/identity",
                                      headers: .restKey(created.restKey), json: ["identity": ["crm": "2"]])
        #expect(patch.status == 409)
        #expect(patch.json == ["errors": ["alias crm '2' belongs to another user"]])
    }

    @Test func createBodyErrors() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let bad = await app.request(.post, Self.users(created), headers: .restKey(created.restKey),
                                    json: ["identity": ["openpush_id": "usr_1"], "properties": ["tags": ["a": 1]]])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["identity.openpush_id is assigned by OpenPush and cannot be set",
                                        "properties.tags.a must be a string, got number"]])
        let empty = await app.request(.post, Self.users(created), headers: .restKey(created.restKey), json: ["identity": [:]])
        #expect(empty.json == ["errors": ["identity must hold at least one alias"]])
        let unknownApp = await app.request(.post, "/apps/app_nothere/users", headers: .restKey(created.restKey),
                                           json: ["identity": ["external_id": "u"]])
        #expect(unknownApp.status == 404)
    }

    @Test func identityIsAddedAndRemoved() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        let made = await app.request(.post, Self.users(created), headers: key, json: ["identity": ["external_id": "u-1"]])
        let userID = try #require(made.json?.objectValue?["identity"]?.objectValue?["openpush_id"]?.stringValue)
        let base = Self.user(created, "external_id", "u-1")

        let added = await app.request(.patch, base + "/identity", headers: key, json: ["identity": ["crm": "42", "app": "a"]])
        #expect(added.status == 200)
        #expect(added.json == ["identity": ["external_id": "u-1", "crm": "42", "app": "a",
                                            "onesignal_id": .string(userID), "openpush_id": .string(userID)]])
        // A label the user has takes the new value.
        let replaced = await app.request(.patch, base + "/identity", headers: key, json: ["identity": ["crm": "43"]])
        #expect(replaced.json?.objectValue?["identity"]?.objectValue?["crm"] == "43")
        let badBody = await app.request(.patch, base + "/identity", headers: key, json: ["crm": "1"])
        #expect(badBody.status == 400)
        #expect(badBody.json == ["errors": ["identity is required", "unknown field 'crm'"]])

        let removed = await app.request(.delete, base + "/identity/app", headers: key)
        #expect(removed.status == 200)
        #expect(removed.json == ["identity": ["external_id": "u-1", "crm": "43",
                                              "onesignal_id": .string(userID), "openpush_id": .string(userID)]])
        let absent = await app.request(.delete, base + "/identity/app", headers: key)
        #expect(absent.status == 404)
        #expect(absent.json == ["errors": ["the user has no 'app' alias"]])
        for label in ["external_id", "openpush_id", "onesignal_id"] {
            let refused = await app.request(.delete, base + "/identity/\(label)", headers: key)
            #expect(refused.status == 400)
            #expect(refused.json == ["errors": [.string("the \(label) alias cannot be deleted")]])
        }
        let unknown = Self.user(created, "external_id", "nobody")
        #expect(await app.request(.patch, unknown + "/identity", headers: key, json: ["identity": ["a": "b"]]).json == Self.notFound)
        #expect(await app.request(.delete, unknown + "/identity/crm", headers: key).json == Self.notFound)
    }

    @Test func deletingAUserUnlinksItsDevices() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        let device = try await app.deviceID(created, ["token": .string(Registry.token(5)), "external_id": "u-1"])
        _ = await app.request(.patch, Self.user(created, "external_id", "u-1") + "/identity", headers: key, json: ["identity": ["crm": "7"]])
        let deleted = await app.request(.delete, Self.user(created, "crm", "7"), headers: key)
        #expect(deleted.status == 200)
        #expect(deleted.json == ["success": true])
        #expect(await app.request(.get, Self.user(created, "external_id", "u-1"), headers: key).json == Self.notFound)
        #expect(await app.request(.delete, Self.user(created, "crm", "7"), headers: key).status == 404)
        let view = try #require(await app.subscription(created, device).json?.objectValue)
        #expect(view["external_id"] == .null)
        #expect(view["retired"] == false)
        // The aliases are free again.
        let again = await app.request(.post, Self.users(created), headers: key, json: ["identity": ["external_id": "u-1", "crm": "7"]])
        #expect(again.status == 201)
    }

    @Test func anotherAppsKeyOrUserNeverCrosses() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let aMade = await app.request(.post, Self.users(a), headers: .restKey(a.restKey), json: ["identity": ["external_id": "shared"]])
        #expect(aMade.status == 201)
        let bMade = await app.request(.post, Self.users(b), headers: .restKey(b.restKey),
                                      json: ["identity": ["external_id": "only-b", "crm": "b"]])
        let bUser = try #require(bMade.json?.objectValue?["identity"]?.objectValue?["openpush_id"]?.stringValue)
        let bDevice = try await app.deviceID(b, ["token": .string(Registry.token(6)), "external_id": "only-b"])

        // B's key on every one of A's user routes.
        let aUser = Self.user(a, "external_id", "shared")
        let routes: [(HTTPMethod, String, JSONValue?)] = [
            (.post, Self.users(a), ["identity": ["external_id": "x"]]), (.get, aUser, nil), (.delete, aUser, nil),
            (.patch, aUser + "/identity", ["identity": ["c": "d"]]), (.delete, aUser + "/identity/c", nil),
        ]
        for (method, path, body) in routes {
            let crossed = await app.send(method, path, headers: .restKey(b.restKey), json: body)
            #expect(crossed.status == 401, "\(method) \(path)")
            #expect(crossed.json == ["errors": [.string(Authentication.badRESTKey)]])
        }
        // B's user, by every label, through A's path with A's key.
        for (label, value) in [("openpush_id", bUser), ("external_id", "only-b"), ("crm", "b"), ("subscription_id", bDevice)] {
            let path = Self.user(a, label, value)
            for (method, suffix, body) in [(HTTPMethod.get, "", nil), (.patch, "/identity", ["identity": ["z": "1"]] as JSONValue?),
                                           (.delete, "/identity/crm", nil), (.delete, "", nil)] {
                let crossed = await app.send(method, path + suffix, headers: .restKey(a.restKey), json: body)
                #expect(crossed.status == 404, "\(method) \(path)\(suffix)")
                #expect(crossed.json == Self.notFound)
            }
        }
        // The same alias in two apps names two users; B's user is untouched.
        let bView = await app.request(.get, Self.user(b, "openpush_id", bUser), headers: .restKey(b.restKey))
        #expect(bView.json?.objectValue?["identity"]?.objectValue?["crm"] == "b")
        #expect(bView.json?.objectValue?["subscriptions"]?.arrayValue?.count == 1)
    }
}
