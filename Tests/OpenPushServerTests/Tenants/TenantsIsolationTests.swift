import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// A tenant's REST key on a shared demo app: it reaches only its linked devices, and naming
/// another tenant's device, user or activity is a `403 {"errors": […]}`.
@Suite struct TenantsIsolationTests {
    static let update: JSONValue = ["event": "update", "name": "ETA", "event_updates": ["eta": 8]]
    static let end: JSONValue = ["event": "end", "name": "Delivered", "event_updates": ["eta": 0]]

    static func start(_ targeting: JSONObject) -> JSONValue {
        var body: JSONObject = [
            "event": "start", "activity_id": "order-9", "name": "Order 9", "event_attributes": ["order": "9"],
            "event_updates": ["eta": 20], "contents": ["en": "On its way"], "headings": ["en": "Order 9"],
        ]
        for (key, value) in targeting { body[key] = value }
        return .object(body)
    }

    /// Two tenants with one linked device each, and a device no tenant has linked.
    struct World {
        var demo: SharedDemo
        var acme: SharedDemo.Tenant
        var globex: SharedDemo.Tenant
        var acmeDevice: SharedDemo.Device
        var globexDevice: SharedDemo.Device
        var unlinked: String

        static func make() async throws -> World {
            let demo = try await SharedDemo.make()
            let acme = try await demo.createTenant("Acme")
            let globex = try await demo.createTenant("Globex")
            let acmeDevice = try await demo.linkedDevice(1, to: acme, externalID: "u-acme")
            let globexDevice = try await demo.linkedDevice(2, to: globex, externalID: "u-globex")
            let unlinked = try await demo.app.deviceID(demo.shared, ["token": .string(Registry.token(3)), "external_id": "u-acme"])
            return World(demo: demo, acme: acme, globex: globex, acmeDevice: acmeDevice, globexDevice: globexDevice,
                         unlinked: unlinked)
        }

        var app: TestApp { demo.app }
        var appID: String { demo.appID }

        func rest(_ method: HTTPMethod, _ path: String, key: String, _ body: JSONValue? = nil) async -> TestResponse {
            await app.send(method, "/apps/\(appID)\(path)", headers: .restKey(key), json: body)
        }
    }

    static func forbidden(_ message: String) -> JSONValue { ["errors": [.string(message)]] }

    // MARK: subscriptions

    @Test func subscriptionRoutesRefuseAnotherTenantsDevice() async throws {
        let w = try await World.make()
        let theirs = "/subscriptions/\(w.globexDevice.subscriptionID)"
        let message = Self.forbidden("subscription '\(w.globexDevice.subscriptionID)' belongs to another tenant of this app")
        for (method, body) in [(HTTPMethod.get, nil), (.patch, ["enabled": false] as JSONValue), (.delete, nil)] {
            let refused = await w.rest(method, theirs, key: w.acme.restKey, body)
            #expect(refused.status == 403, "\(method)")
            #expect(refused.json == message)
        }
        let untouched = try #require(await w.rest(.get, theirs, key: w.globex.restKey).json?.objectValue)
        #expect(untouched["enabled"] == true)
        #expect(untouched["retired"] == false)
        let mine = "/subscriptions/\(w.acmeDevice.subscriptionID)"
        #expect(await w.rest(.patch, mine, key: w.acme.restKey, ["enabled": false]).json?.objectValue?["enabled"] == false)
        #expect(await w.rest(.delete, mine, key: w.acme.restKey).status == 200)
    }

    // MARK: users

    @Test func aTenantSeesOnlyUsersOfItsOwnDevices() async throws {
        let w = try await World.make()
        // u-acme: Acme's device, plus an unlinked one (nobody's, not shown to the tenant).
        let own = await w.rest(.get, "/users/by/external_id/u-acme", key: w.acme.restKey)
        #expect(own.status == 200)
        let devices = own.json?.objectValue?["subscriptions"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(devices == [w.acmeDevice.subscriptionID])
        let everything = await w.rest(.get, "/users/by/external_id/u-acme", key: w.demo.shared.restKey)
        #expect(everything.json?.objectValue?["subscriptions"]?.arrayValue?.count == 2)

        let theirs = Self.forbidden("this user belongs to another tenant of this app")
        for path in ["/users/by/external_id/u-globex", "/users/by/subscription_id/\(w.globexDevice.subscriptionID)"] {
            let refused = await w.rest(.get, path, key: w.acme.restKey)
            #expect(refused.status == 403)
            #expect(refused.json == theirs)
        }
        // A user with devices of two tenants belongs to neither.
        _ = try await w.demo.linkedDevice(4, to: w.globex, externalID: "u-acme")
        #expect(await w.rest(.get, "/users/by/external_id/u-acme", key: w.acme.restKey).json == theirs)
        // A user without a device of this tenant is not its own either; an unknown user is 404.
        #expect(await w.rest(.post, "/users", key: w.demo.shared.restKey, ["identity": ["external_id": "u-lonely"]]).status == 201)
        let lonely = await w.rest(.get, "/users/by/external_id/u-lonely", key: w.acme.restKey)
        #expect(lonely.status == 403)
        #expect(lonely.json == Self.forbidden("this user has no device linked to this tenant"))
        #expect(await w.rest(.get, "/users/by/external_id/u-nobody", key: w.acme.restKey).status == 404)
    }

    @Test func aTenantChangesOnlyItsOwnUsers() async throws {
        let w = try await World.make()
        let theirs = Self.forbidden("this user belongs to another tenant of this app")
        let user = "/users/by/external_id/u-globex"
        #expect(await w.rest(.post, "/users", key: w.globex.restKey, ["identity": ["external_id": "u-globex", "crm": "g-1"]])
            .status == 200)
        let attempts: [(HTTPMethod, String, JSONValue?)] = [
            (.patch, "\(user)/identity", ["identity": ["crm": "stolen"]]),
            (.delete, "\(user)/identity/crm", nil),
            (.delete, user, nil),
            (.post, "", ["identity": ["external_id": "u-globex"], "properties": ["tags": ["owner": "acme"]]]),
        ]
        for (method, path, body) in attempts {
            let refused = await w.rest(method, path.isEmpty ? "/users" : path, key: w.acme.restKey, body)
            #expect(refused.status == 403, "\(method) \(path)")
            #expect(refused.json == theirs)
        }
        let intact = try #require(await w.rest(.get, user, key: w.globex.restKey).json?.objectValue)
        #expect(intact["identity"]?.objectValue?["crm"] == "g-1")
        #expect(intact["properties"]?.objectValue?["tags"] == [:])

        // Its own user it changes; a brand-new user it may create.
        let mine = "/users/by/external_id/u-acme"
        #expect(await w.rest(.patch, "\(mine)/identity", key: w.acme.restKey, ["identity": ["crm": "a-1"]]).status == 200)
        #expect(await w.rest(.delete, "\(mine)/identity/crm", key: w.acme.restKey).status == 200)
        let merged = await w.rest(.post, "/users", key: w.acme.restKey, ["identity": ["external_id": "u-acme"]])
        #expect(merged.status == 200)
        #expect(merged.json?.objectValue?["subscriptions"]?.arrayValue?.count == 1)
        let created = await w.rest(.post, "/users", key: w.acme.restKey, ["identity": ["external_id": "u-new"]])
        #expect(created.status == 201)
        #expect(await w.rest(.delete, mine, key: w.acme.restKey).status == 200)
    }

    // MARK: segments

    @Test func segmentsAreTheAppsToChange() async throws {
        let w = try await World.make()
        let created = await w.rest(.post, "/segments", key: w.demo.shared.restKey,
                                   ["name": "English", "filters": [["field": "language", "relation": "=", "value": "en"]]])
        #expect(created.status == 201)
        let id = try #require(created.json?.objectValue?["id"]?.stringValue)
        let create = await w.rest(.post, "/segments", key: w.acme.restKey, ["name": "Mine", "filters": []])
        #expect(create.status == 403)
        #expect(create.json == Self.forbidden("a tenant's key cannot create segments: they are shared by every tenant of this app"))
        let delete = await w.rest(.delete, "/segments/\(id)", key: w.acme.restKey)
        #expect(delete.status == 403)
        #expect(delete.json == Self.forbidden("a tenant's key cannot delete segments: they are shared by every tenant of this app"))
        let listed = try #require(await w.rest(.get, "/segments", key: w.acme.restKey).json?.objectValue?["segments"]?.arrayValue)
        // Four built-in segments, then the app's saved one.
        #expect(listed.map { $0.objectValue?["read_only"] } == [true, true, true, true, true])
        let forTheApp = try #require(await w.rest(.get, "/segments", key: w.demo.shared.restKey).json?.objectValue?["segments"]?.arrayValue)
        #expect(forTheApp.map { $0.objectValue?["read_only"] } == [true, true, true, true, false])
        #expect(await w.rest(.delete, "/segments/\(id)", key: w.demo.shared.restKey).status == 200)
    }

    // MARK: Live Activity sends

    @Test func aStartNamingAnotherTenantsDeviceIsRefused() async throws {
        let w = try await World.make()
        for device in [w.acmeDevice, w.globexDevice] {
            let registered = await w.demo.native("/live-activities/push-to-start", [
                "token": .string(device.token), "activity_type": "Delivery",
                "push_to_start_token": .string(String(repeating: "e", count: 64)),
            ], deviceKey: device.deviceKey)
            try #require(registered.status == 200)
        }
        let path = "/activities/activity/Delivery"
        let mine = JSONValue.string(w.acmeDevice.subscriptionID)
        let theirs = JSONValue.string(w.globexDevice.subscriptionID)
        let message = Self.forbidden("subscription '\(w.globexDevice.subscriptionID)' belongs to another tenant of this app")
        for targeting: JSONObject in [
            ["include_subscription_ids": [theirs]],
            ["include_subscription_ids": [mine, theirs]],
            ["include_aliases": ["subscription_id": [theirs]]],
        ] {
            let refused = await w.rest(.post, path, key: w.acme.restKey, Self.start(targeting))
            #expect(refused.status == 403)
            #expect(refused.json == message)
        }
        let own = await w.rest(.post, path, key: w.acme.restKey, Self.start(["include_subscription_ids": [mine]]))
        #expect(own.status == 201)
        #expect(own.headers["OpenPush-Audience-Total"] == "1")
        // Segments and filters reach only the tenant's devices, without refusing.
        let everyone = await w.rest(.post, path, key: w.acme.restKey, Self.start(["included_segments": ["Subscribed Users"]]))
        #expect(everyone.status == 201)
        #expect(everyone.headers["OpenPush-Audience-Total"] == "1")
        // The app's own key reaches both.
        let app = await w.rest(.post, path, key: w.demo.shared.restKey, Self.start(["include_subscription_ids": [mine, theirs]]))
        #expect(app.headers["OpenPush-Audience-Total"] == "2")
        let rows = try await w.app.services.database.query("""
            SELECT count(*)::int AS n FROM messages WHERE app_id = \(w.appID)
            """)
        #expect(try rows[0].decode("n", as: Int.self) == 3)
    }

    @Test func anUpdateOrEndOfAnotherTenantsActivityIsRefused() async throws {
        let w = try await World.make()
        try await w.demo.registerActivity("order-g", on: w.globexDevice)
        try await w.demo.registerActivity("order-a", on: w.acmeDevice)
        let path = { (id: String) in "/live_activities/\(id)/notifications" }
        for body in [Self.update, Self.end] {
            let refused = await w.rest(.post, path("order-g"), key: w.acme.restKey, body)
            #expect(refused.status == 403)
            #expect(refused.json == Self.forbidden("live activity 'order-g' belongs to another tenant of this app"))
        }
        let open = try await w.app.services.database.query("""
            SELECT count(*)::int AS n FROM live_activities WHERE activity_id = 'order-g' AND ended_at IS NULL
            """)
        #expect(try open[0].decode("n", as: Int.self) == 1)
        let unknown = await w.rest(.post, path("order-none"), key: w.acme.restKey, Self.update)
        #expect(unknown.status == 404)
        #expect(unknown.json == Self.forbidden(SendMessages.nothingOpen))
        let own = await w.rest(.post, path("order-a"), key: w.acme.restKey, Self.update)
        #expect(own.status == 201)
        #expect(own.headers["OpenPush-Audience-Total"] == "1")
        // An id held by both tenants: each reaches its own device only.
        try await w.demo.registerActivity("order-s", on: w.acmeDevice)
        let shared = try await w.app.services.database.query("""
            INSERT INTO live_activities (id, app_id, subscription_id, activity_id, activity_type, update_token, started_at, stale_at, created_at, updated_at)
            SELECT 'lact_copy', app_id, \(w.globexDevice.subscriptionID), activity_id, activity_type, update_token,
                   started_at, stale_at, created_at, updated_at
            FROM live_activities WHERE activity_id = 'order-s' RETURNING id
            """)
        try #require(shared.count == 1)
        let both = await w.rest(.post, path("order-s"), key: w.acme.restKey, Self.update)
        #expect(both.headers["OpenPush-Audience-Total"] == "1")
        let app = await w.rest(.post, path("order-g"), key: w.demo.shared.restKey, Self.update)
        #expect(app.status == 201)
    }

    // MARK: another app

    /// Another app's keys and a tenant key of this app on another app: 401, never data.
    @Test func anotherAppsKeysGetNothing() async throws {
        let w = try await World.make()
        let other = try await w.app.createApp(AppSettings(name: "Other", sharedDemo: true))
        let paths: [(HTTPMethod, String, JSONValue?)] = [
            (.get, "/subscriptions/\(w.acmeDevice.subscriptionID)", nil),
            (.get, "/users/by/external_id/u-acme", nil),
            (.get, "/segments", nil),
            (.post, "/live_activities/order-a/notifications", Self.update),
        ]
        for (method, path, body) in paths {
            let response = await w.rest(method, path, key: other.restKey, body)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.json == ["errors": [.string(Authentication.badRESTKey)]])
            let tenantElsewhere = await w.app.send(method, "/apps/\(other.app.id)\(path)", headers: .restKey(w.acme.restKey), json: body)
            #expect(tenantElsewhere.status == 401, "\(method) \(path)")
        }
    }
}
