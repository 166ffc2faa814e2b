import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// `PATCH /apps/{app_id}/users/by/{alias_label}/{alias_id}`, OneSignal's `update_user`.
@Suite struct UserUpdateTests {
    static func user(_ app: CreatedApp, _ label: String, _ value: String) -> String {
        "/apps/\(app.app.id)/users/by/\(label)/\(value)"
    }

    static func user(_ app: CreatedApp, _ externalID: String) -> String { user(app, "external_id", externalID) }

    static func patch(_ app: TestApp, _ created: CreatedApp, _ path: String, _ body: JSONValue) async -> TestResponse {
        await app.request(.patch, path, headers: .restKey(created.restKey), json: body)
    }

    static func tags(_ app: TestApp, _ created: CreatedApp, _ device: String) async -> JSONValue? {
        await app.subscription(created, device).json?.objectValue?["tags"]
    }

    @Test func propertiesAreSetAndDeltasAddUp() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        _ = await app.request(.post, "/apps/\(created.app.id)/users", headers: key,
                              json: ["identity": ["external_id": "u-1"], "properties": ["tags": ["old": "1", "keep": "k"]]])
        let first = await Self.patch(app, created, Self.user(created, "u-1"), [
            "properties": ["tags": ["tier": "gold", "old": ""], "language": "de", "timezone_id": "Europe/Berlin",
                           "lat": 52.5, "long": 13, "country": "DE", "first_active": 1_700_000_000, "last_active": 1_700_000_500],
            "deltas": ["session_count": 2, "session_time": 60,
                       "purchases": [["sku": "coins", "amount": "4.99", "iso": "usd", "count": 2]]],
            "refresh_device_metadata": false,
        ])
        #expect(first.status == 200, "\(first.text)")
        let purchase: JSONValue = ["sku": "coins", "amount": "4.99", "iso": "USD", "count": 2]
        #expect(first.json == ["properties": [
            "tags": ["keep": "k", "tier": "gold"], "language": "de", "timezone_id": "Europe/Berlin", "lat": 52.5, "long": 13.0,
            "country": "DE", "first_active": 1_700_000_000, "last_active": 1_700_000_500, "amount_spent": 9.98,
            "purchases": [purchase], "session_count": 2, "session_time": 60,
        ]])

        // Deltas add; properties not sent stay.
        let second = await Self.patch(app, created, Self.user(created, "u-1"), [
            "deltas": ["session_count": 1, "session_time": 30, "purchases": [["sku": "gem", "amount": "1", "iso": "EUR"]]],
        ])
        let properties = try #require(second.json?.objectValue?["properties"]?.objectValue)
        #expect(properties["session_count"] == 3)
        #expect(properties["session_time"] == 90)
        #expect(properties["amount_spent"]?.doubleValue.map { abs($0 - 10.98) < 1e-9 } == true)
        #expect(properties["purchases"] == [purchase, ["sku": "gem", "amount": "1", "iso": "EUR", "count": 1]])
        #expect(properties["language"] == "de" && properties["lat"] == 52.5)

        // get_user shows the same properties.
        let shown = await app.request(.get, Self.user(created, "u-1"), headers: key)
        #expect(shown.json?.objectValue?["properties"] == second.json?.objectValue?["properties"])
    }

    @Test func theNewestPurchasesAreKeptAndEveryOneIsSpent() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        _ = try await app.deviceID(created, ["token": .string(Registry.token(1)), "external_id": "u-1"])
        for batch in 0..<2 {
            let purchases = JSONValue.array((0..<100).map { index in
                ["sku": .string("b\(batch)-\(index)"), "amount": "0.5", "iso": "USD"] as JSONValue
            })
            #expect(await Self.patch(app, created, Self.user(created, "u-1"), ["deltas": ["purchases": purchases]]).status == 200)
        }
        let shown = await app.request(.get, Self.user(created, "u-1"), headers: .restKey(created.restKey))
        let properties = try #require(shown.json?.objectValue?["properties"]?.objectValue)
        let skus = properties["purchases"]?.arrayValue?.compactMap { $0.objectValue?["sku"]?.stringValue }
        #expect(skus == (0..<100).map { "b1-\($0)" })
        #expect(properties["amount_spent"] == 100.0)
    }

    /// `create_user` takes every property of OneSignal's properties object that is an input.
    @Test func createTakesEveryProperty() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let key = HTTPHeaders.restKey(created.restKey)
        let made = await app.request(.post, "/apps/\(created.app.id)/users", headers: key, json: [
            "identity": ["external_id": "u-1"],
            "properties": ["lat": -33.9, "long": 151.2, "first_active": 1_600_000_000, "last_active": 1_600_000_100],
        ])
        #expect(made.status == 201)
        #expect(made.json?.objectValue?["properties"] == ["tags": [:], "lat": -33.9, "long": 151.2,
                                                          "first_active": 1_600_000_000, "last_active": 1_600_000_100])
        let withDevices = await app.request(.post, "/apps/\(created.app.id)/users", headers: key, json: [
            "identity": ["external_id": "u-2"], "subscriptions": [["type": "iOSPush", "token": .string(Registry.token(1))]],
            "properties": ["amount_spent": 5],
        ])
        #expect(withDevices.status == 400)
        #expect(withDevices.json == ["errors": ["properties.amount_spent is the sum of the purchases sent in deltas.purchases",
                                                "unknown field 'subscriptions'"]])
        #expect(await app.request(.get, Self.user(created, "u-2"), headers: key).status == 404)
    }

    @Test func theUserViewHasNoNullsAndOneSignalsSubscriptionShape() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let device = try await app.deviceID(created, ["token": .string(Registry.token(1)), "external_id": "u-1",
                                                      "app_version": "2.1", "device_model": "iPhone16,1"])
        let shown = await app.request(.get, Self.user(created, "u-1"), headers: .restKey(created.restKey))
        let view = try #require(shown.json?.objectValue)
        #expect(!shown.text.contains("null"))
        let shownDevice = try #require(view["subscriptions"]?.arrayValue?.first?.objectValue)
        #expect(view["subscriptions"]?.arrayValue?.count == 1)
        for (key, value) in ["id": .string(device), "type": "iOSPush", "token": .string(Registry.token(1)), "enabled": true,
                             "notification_types": 1, "session_count": 1, "app_version": "2.1",
                             "device_model": "iPhone16,1", "external_id": "u-1"] as JSONObject {
            #expect(shownDevice[key] == value, "\(key)")
        }
        #expect(shownDevice["device_os"] == nil && shownDevice["quiet_hours"] == nil)
        // Never set, the activity times come from the device's sessions.
        let properties = try #require(view["properties"]?.objectValue)
        let firstActive = try #require(properties["first_active"]?.intValue)
        #expect(properties["last_active"]?.intValue == firstActive)
        #expect(properties["amount_spent"] == nil && properties["purchases"] == nil && properties["lat"] == nil)
    }

    @Test func userTagsReachTheUsersLiveDevicesOnly() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let phone = try await app.deviceID(a, ["token": .string(Registry.token(1)), "external_id": "u-1", "tags": ["own": "1"]])
        let tablet = try await app.deviceID(a, ["token": .string(Registry.token(2)), "external_id": "u-1"])
        let stranger = try await app.deviceID(a, ["token": .string(Registry.token(3)), "external_id": "u-2"])
        let otherApp = try await app.deviceID(b, ["token": .string(Registry.token(4)), "external_id": "u-1"])

        let set = await Self.patch(app, a, Self.user(a, "u-1"), ["properties": ["tags": ["tier": "gold"]]])
        #expect(set.status == 200)
        #expect(await Self.tags(app, a, phone) == ["own": "1", "tier": "gold"])
        #expect(await Self.tags(app, a, tablet) == ["tier": "gold"])
        #expect(await Self.tags(app, a, stranger) == [:])
        #expect(await Self.tags(app, b, otherApp) == [:])

        // "" removes the tag from the user and its devices.
        let removed = await Self.patch(app, a, Self.user(a, "u-1"), ["properties": ["tags": ["tier": ""]]])
        #expect(removed.json?.objectValue?["properties"]?.objectValue?["tags"] == [:])
        #expect(await Self.tags(app, a, phone) == ["own": "1"])
        #expect(await Self.tags(app, a, tablet) == [:])
    }

    /// A device linked after its user's tags were set takes them, as OneSignal's tags are the
    /// user's: when it registers with the `external_id`, or when an unlinked device is linked on a
    /// later launch. The device's own keys win, a key it removed stays removed on its next launch,
    /// and the user's keys fill in only up to the device bound, in key order.
    @Test func devicesLinkedLaterTakeTheUsersTags() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let userTags: [(CreatedApp, JSONValue)] = [(a, ["tier": "gold", "plan": "pro"]), (b, ["other": "x"])]
        for (created, tags) in userTags {
            let made = await app.request(.post, "/apps/\(created.app.id)/users", headers: .restKey(created.restKey),
                                         json: ["identity": ["external_id": "u-1"], "properties": ["tags": tags]])
            try #require(made.status == 201, "\(made.text)")
        }

        let phone = try await app.deviceID(a, ["token": .string(Registry.token(1)), "external_id": "u-1", "tags": ["plan": "free"]])
        #expect(await Self.tags(app, a, phone) == ["plan": "free", "tier": "gold"])

        let tablet = try await app.deviceID(a, ["token": .string(Registry.token(2))])
        #expect(await Self.tags(app, a, tablet) == [:])
        _ = try await app.deviceID(a, ["token": .string(Registry.token(2)), "external_id": "u-1"])
        #expect(await Self.tags(app, a, tablet) == ["plan": "pro", "tier": "gold"])
        _ = try await app.deviceID(a, ["token": .string(Registry.token(2)), "external_id": "u-1", "tags": ["tier": ""]])
        _ = try await app.deviceID(a, ["token": .string(Registry.token(2)), "external_id": "u-1"])
        #expect(await Self.tags(app, a, tablet) == ["plan": "pro"])

        // 99 keys of its own leave room for one of the user's: "plan" comes before "tier".
        let own = JSONObject((0..<99).map { ("d\($0)", JSONValue.string("1")) })
        let full = try await app.deviceID(a, ["token": .string(Registry.token(3)), "external_id": "u-1", "tags": .object(own)])
        let fullTags = try #require(await Self.tags(app, a, full)?.objectValue)
        #expect(fullTags.count == TagLimits.maxKeys && fullTags["plan"] == "pro" && fullTags["tier"] == nil)

        // Each app's user is its own.
        let otherApp = try await app.deviceID(b, ["token": .string(Registry.token(4)), "external_id": "u-1"])
        #expect(await Self.tags(app, b, otherApp) == ["other": "x"])
    }

    @Test func boundsAreCheckedAndNothingIsStoredOverThem() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let device = try await app.deviceID(created, ["token": .string(Registry.token(1)), "external_id": "u-1",
                                                      "tags": .object(JSONObject((0..<60).map { ("d\($0)", JSONValue.string("1")) }))])
        let path = Self.user(created, "u-1")
        let bad = await Self.patch(app, created, path, [
            "properties": ["lat": 91, "long": "east", "first_active": -1, "ip": "1.2.3.4", "colour": "red"],
            "deltas": ["session_count": -1, "session_time": 40_000_000,
                       "purchases": [["sku": "", "amount": "4,99", "iso": "US", "count": 0], "x"]],
        ])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": [
            "properties.lat must be a number from -90 to 90", "properties.long must be a number from -180 to 180",
            "properties.first_active must be an integer from 0 to 253402300799", "properties.ip is not stored by OpenPush",
            "unknown field 'properties.colour'",
            "deltas.session_count must be an integer from 0 to 1000000", "deltas.session_time must be an integer from 0 to 31536000",
            "deltas.purchases[0].sku is required",
            "deltas.purchases[0].amount must be a decimal string such as \"4.99\" (at most 12 digits before the point and 6 after)",
            "deltas.purchases[0].iso must be a 3-letter ISO 4217 currency code",
            "deltas.purchases[0].count must be an integer from 1 to 10000", "deltas.purchases[1] must be an object, got string",
        ]])
        let tooMany = await Self.patch(app, created, path, ["deltas": ["purchases": .array(Array(repeating: [
            "sku": "a", "amount": "1", "iso": "USD"] as JSONValue, count: 101))]])
        #expect(tooMany.json == ["errors": ["deltas.purchases must hold at most 100 purchases"]])
        let empty = await Self.patch(app, created, path, [:])
        #expect(empty.json == ["errors": ["properties or deltas is required"]])

        // 50 more keys fit the user but would take its device to 110: refused whole.
        let fifty = JSONValue.object(JSONObject((0..<50).map { ("u\($0)", JSONValue.string("1")) }))
        let over = await Self.patch(app, created, path, ["properties": ["tags": fifty, "language": "fr"]])
        #expect(over.status == 400)
        #expect(over.json == ["errors": ["tags: at most 100 keys per device: this change would leave 110"]])
        let user = await app.request(.get, path, headers: .restKey(created.restKey))
        let properties = user.json?.objectValue?["properties"]?.objectValue
        #expect(properties?["tags"] == [:] && properties?["language"] == nil)
        #expect(await Self.tags(app, created, device)?.objectValue?.count == 60)
        let userOver = await Self.patch(app, created, Self.user(created, "u-1"), ["properties": [
            "tags": .object(JSONObject((0..<101).map { ("k\($0)", JSONValue.string("1")) }))]])
        #expect(userOver.status == 400)
    }

    @Test func anotherAppsKeyOrUserNeverCrosses() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        _ = try await app.deviceID(a, ["token": .string(Registry.token(1)), "external_id": "shared"])
        let bDevice = try await app.deviceID(b, ["token": .string(Registry.token(2)), "external_id": "shared"])
        let body: JSONValue = ["properties": ["tags": ["x": "1"], "language": "fr"], "deltas": ["session_count": 5]]

        let crossedKey = await app.request(.patch, Self.user(a, "shared"), headers: .restKey(b.restKey), json: body)
        #expect(crossedKey.status == 401)
        #expect(crossedKey.json == ["errors": [.string(Authentication.badRESTKey)]])
        let bUser = try #require(await app.request(.get, Self.user(b, "shared"), headers: .restKey(b.restKey))
            .json?.objectValue?["identity"]?.objectValue?["openpush_id"]?.stringValue)
        for (label, value) in [("openpush_id", bUser), ("subscription_id", bDevice)] {
            let crossed = await Self.patch(app, a, Self.user(a, label, value), body)
            #expect(crossed.status == 404)
            #expect(crossed.json == ["errors": ["user not found"]])
        }
        // A's change by the shared external id leaves B's user and device alone.
        #expect(await Self.patch(app, a, Self.user(a, "shared"), body).status == 200)
        let bView = try #require(await app.request(.get, Self.user(b, "shared"), headers: .restKey(b.restKey)).json?.objectValue)
        #expect(bView["properties"]?.objectValue?["tags"] == [:])
        #expect(bView["properties"]?.objectValue?["language"] == nil && bView["properties"]?.objectValue?["session_count"] == nil)
        #expect(await Self.tags(app, b, bDevice) == [:])
    }
}
