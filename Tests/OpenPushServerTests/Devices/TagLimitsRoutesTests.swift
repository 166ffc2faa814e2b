import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// Tags are bounded on every route that writes them (100 keys after merging with the stored
/// ones, keys of 1-128 characters, values of at most 1,024 bytes), and a refused request stores
/// nothing: not its tags, nor any other field it carried.
@Suite struct TagLimitsRoutesTests {
    /// `count` tags named `prefix0`, `prefix1`, …
    static func tags(_ count: Int, _ prefix: String, value: String = "v") -> JSONObject {
        JSONObject((0..<count).map { ("\(prefix)\($0)", JSONValue.string(value)) })
    }

    static func merged(_ parts: JSONObject...) -> JSONValue {
        var all: JSONObject = [:]
        for part in parts { for (key, value) in part { all[key] = value } }
        return .object(all)
    }

    static func view(_ app: TestApp, _ created: CreatedApp, _ id: String) async throws -> JSONObject {
        try #require(await app.subscription(created, id).json?.objectValue)
    }

    // MARK: /v1 (SDK key)

    @Test func registrationCountsTagsAfterMergingAndAnOverflowStoresNothing() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let token = Registry.token(1)
        let id = try await app.deviceID(created, ["token": .string(token), "tags": .object(Self.tags(90, "old")), "language": "en"])

        // 90 stored + 20 new: refused whole, the language sent beside the tags included.
        let over = await app.registerDevice(created, ["token": .string(token), "tags": .object(Self.tags(20, "new")),
                                                      "language": "fr"])
        #expect(over.status == 400)
        #expect(over.json == ["detail": "tags: at most 100 keys per device: this change would leave 110"])
        var view = try await Self.view(app, created, id)
        #expect(view["tags"] == .object(Self.tags(90, "old")))
        #expect(view["language"] == "en")
        #expect(view["session_count"] == 1)

        // 90 stored + 10 new + 5 removals of stored ones: 95.
        var change = Self.tags(10, "new")
        for index in 0..<5 { change["old\(index)"] = "" }
        let fits = await app.registerDevice(created, ["token": .string(token), "tags": .object(change)])
        #expect(fits.status == 200, "\(fits.text)")
        view = try await Self.view(app, created, id)
        #expect(view["tags"]?.objectValue?.count == 95)
        #expect(view["tags"]?.objectValue?["new9"] == "v")
        #expect(view["tags"]?.objectValue?["old0"] == nil)

        // Another app's device with the same token has a count of its own.
        let elsewhere = await app.registerDevice(other, ["token": .string(token), "tags": .object(Self.tags(100, "b"))])
        #expect(elsewhere.status == 201, "\(elsewhere.text)")
        #expect(try await Self.view(app, created, id)["tags"]?.objectValue?.count == 95)
    }

    @Test func registrationRefusesOverlongKeysValuesAndTooManyKeys() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(2)
        let cases: [(JSONValue, String)] = [
            (.object(Self.tags(101, "k")), "tags: at most 100 keys per device, got 101"),
            ([String(repeating: "k", count: 129): "v"], "tags: a key must be 1-128 characters, got 129"),
            (["big": .string(String(repeating: "x", count: 1025))], "tags.big: a tag value must be at most 1024 bytes, got 1025"),
        ]
        for (tags, message) in cases {
            let refused = await app.registerDevice(created, ["token": .string(token), "tags": tags])
            #expect(refused.status == 400)
            #expect(refused.json == ["detail": .string(message)], "\(refused.text)")
        }
        // None of them made a device.
        let rows = try await app.services.database.query("SELECT count(*)::int AS n FROM subscriptions WHERE token = \(token)")
        #expect(try rows[0].decode("n", as: Int.self) == 0)
        // At the bounds: 100 keys, a 128-character key, a 1,024-byte value.
        var edge = Self.tags(98, "k")
        edge[String(repeating: "k", count: 128)] = "v"
        edge["big"] = .string(String(repeating: "é", count: 512))
        #expect(await app.registerDevice(created, ["token": .string(token), "tags": .object(edge)]).status == 201)
    }

    @Test func concurrentRegistrationsCannotTogetherPassTheBound() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let token = Registry.token(3)
        let id = try await app.deviceID(created, ["token": .string(token)])
        async let first = app.registerDevice(created, ["token": .string(token), "tags": .object(Self.tags(60, "a"))])
        async let second = app.registerDevice(created, ["token": .string(token), "tags": .object(Self.tags(60, "b"))])
        let statuses = await [first.status, second.status].sorted()
        #expect(statuses == [200, 400])
        #expect(try await Self.view(app, created, id)["tags"]?.objectValue?.count == 60)
    }

    // MARK: REST (REST key)

    @Test func patchCountsTagsAfterMergingAndAnOverflowStoresNothing() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await app.deviceID(created, ["token": .string(Registry.token(4)), "tags": .object(Self.tags(90, "old"))])
        let path = "/apps/\(created.app.id)/subscriptions/\(id)"

        let over = await app.request(.patch, path, headers: .restKey(created.restKey),
                                     json: ["subscription": ["enabled": false, "tags": .object(Self.tags(20, "new"))]])
        #expect(over.status == 400)
        #expect(over.json == ["errors": ["tags: at most 100 keys per device: this change would leave 110"]])
        var view = try await Self.view(app, created, id)
        #expect(view["tags"] == .object(Self.tags(90, "old")))
        #expect(view["enabled"] == true)

        var change = Self.tags(10, "new")
        for index in 0..<5 { change["old\(index)"] = "" }
        let fits = await app.request(.patch, path, headers: .restKey(created.restKey), json: ["subscription": ["tags": .object(change)]])
        #expect(fits.status == 200, "\(fits.text)")
        view = try await Self.view(app, created, id)
        #expect(view["tags"]?.objectValue?.count == 95)

        let long = await app.request(.patch, path, headers: .restKey(created.restKey),
                                     json: ["tags": ["v": .string(String(repeating: "x", count: 1025))]])
        #expect(long.json == ["errors": ["tags.v: a tag value must be at most 1024 bytes, got 1025"]])
        let nested = await app.request(.patch, path, headers: .restKey(created.restKey),
                                       json: ["subscription": ["tags": .object(Self.tags(101, "k"))]])
        #expect(nested.json == ["errors": ["subscription.tags: at most 100 keys per device, got 101"]])
    }

    @Test func userPropertiesCountTagsAfterMergingAndAnOverflowStoresNothing() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let users = "/apps/\(created.app.id)/users"
        let first = await app.request(.post, users, headers: .restKey(created.restKey), json: [
            "identity": ["external_id": "u-1"], "properties": ["tags": .object(Self.tags(90, "old")), "language": "en"],
        ])
        #expect(first.status == 201)

        // Merging into the user: 90 + 20 is refused, and neither the alias nor the language is stored.
        let over = await app.request(.post, users, headers: .restKey(created.restKey), json: [
            "identity": ["external_id": "u-1", "crm": "42"], "properties": ["tags": .object(Self.tags(20, "new")), "language": "fr"],
        ])
        #expect(over.status == 400)
        #expect(over.json == ["errors": ["tags: at most 100 keys per user: this change would leave 110"]])
        let view = await app.request(.get, "\(users)/by/external_id/u-1", headers: .restKey(created.restKey))
        #expect(view.json?.objectValue?["properties"] == ["tags": Self.merged(Self.tags(90, "old")), "language": "en"])
        #expect(view.json?.objectValue?["identity"]?.objectValue?["crm"] == nil)

        var change = Self.tags(10, "new")
        for index in 0..<5 { change["old\(index)"] = "" }
        let fits = await app.request(.post, users, headers: .restKey(created.restKey), json: [
            "identity": ["external_id": "u-1"], "properties": ["tags": .object(change)],
        ])
        #expect(fits.status == 200, "\(fits.text)")
        #expect(fits.json?.objectValue?["properties"]?.objectValue?["tags"]?.objectValue?.count == 95)

        let tooMany = await app.request(.post, users, headers: .restKey(created.restKey), json: [
            "identity": ["external_id": "u-2"], "properties": ["tags": .object(Self.tags(101, "k"))],
        ])
        #expect(tooMany.json == ["errors": ["properties.tags: at most 100 keys per user, got 101"]])

        // The other app's user of the same external id is its own.
        let elsewhere = await app.request(.post, "/apps/\(other.app.id)/users", headers: .restKey(other.restKey), json: [
            "identity": ["external_id": "u-1"], "properties": ["tags": .object(Self.tags(100, "b"))],
        ])
        #expect(elsewhere.status == 201, "\(elsewhere.text)")
    }
}
