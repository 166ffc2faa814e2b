import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /v1/apps/{app_id}/subscriptions` as a device sends it on every launch: one statement
/// (`openpush_register_subscription`), the SDK-key check included, with every behaviour of the
/// registration's transaction.
@Suite struct SubscriptionRegisterStatementTests {
    /// What the pool sent while `body` ran; nothing else uses the test app's pool meanwhile.
    private func traffic(_ app: TestApp, _ body: () async -> Void) async -> PostgresTraffic {
        let before = app.services.database.traffic
        await body()
        return app.services.database.traffic - before
    }

    private func count(_ app: TestApp, _ query: PostgresQuery) async throws -> Int {
        try await app.services.database.query(query)[0].decode("n", as: Int.self)
    }

    @Test func aNewDeviceWithTagsAndAnExternalIDAndARefreshCostOneStatementEach() async throws {
        let clock = RegistryClock()
        let app = try await TestApp.make(now: clock.now)
        let a = try await app.createApp()
        let b = try await app.createApp()
        let token = Registry.token(1)
        var status = 0
        var id: String?
        let registration = await traffic(app) {
            let response = await app.registerDevice(a, [
                "token": .string(token), "external_id": "u-1", "tags": ["plan": "pro", "level": "3"],
                "language": "en", "timezone": "Europe/Paris", "hide_details": true,
                "quiet_hours": ["start": "22:00", "end": "07:00"], "muted_threads": ["promo"],
            ])
            status = response.status
            id = response.json?.objectValue?["id"]?.stringValue
        }
        #expect(status == 201)
        #expect(registration == PostgresTraffic(statements: 1, roundTrips: 1))
        let subscriptionID = try #require(id)

        clock.advance(by: 60)
        let refresh = await traffic(app) {
            let response = await app.registerDevice(a, ["token": .string(token), "app_version": "2.1"])
            status = response.status
            id = response.json?.objectValue?["id"]?.stringValue
        }
        #expect(status == 200)
        #expect(id == subscriptionID)
        #expect(refresh == PostgresTraffic(statements: 1, roundTrips: 1))

        // Everything the transaction stored is there: the row with its fields, a session, the user.
        let view = try #require(await app.subscription(a, subscriptionID).json?.objectValue)
        #expect(view["tags"] == ["plan": "pro", "level": "3"])
        #expect(view["external_id"] == "u-1")
        #expect(view["session_count"] == 2)
        #expect(view["last_session_at"] == 1_800_000_060)
        #expect(view["app_version"] == "2.1")
        #expect(view["hide_details"] == true)
        #expect(view["quiet_hours"] == ["start": "22:00", "end": "07:00"])
        #expect(view["muted_threads"] == ["promo"])
        let user = await app.request(.get, "/apps/\(a.app.id)/users/by/external_id/u-1", headers: .restKey(a.restKey))
        #expect(user.status == 200)
        #expect(user.json?.objectValue?["subscriptions"]?.arrayValue?.count == 1)
        // The other app has nothing.
        #expect(try await count(app, "SELECT count(*)::int AS n FROM subscriptions WHERE app_id = \(b.app.id)") == 0)
        #expect(try await count(app, "SELECT count(*)::int AS n FROM users WHERE app_id = \(b.app.id)") == 0)
    }

    @Test func concurrentRegistrationsOfOneTokenMakeOneSubscription() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let token = Registry.token(7)
        let statuses = await withTaskGroup(of: [Int].self) { group in
            for index in 0..<8 {
                group.addTask {
                    let target = index.isMultiple(of: 2) ? a : b
                    let response = await app.registerDevice(target, ["token": .string(token), "tags": ["n": .string("\(index)")]])
                    return [index.isMultiple(of: 2) ? 0 : 1, response.status]
                }
            }
            return await group.reduce(into: [Int]()) { $0 += [$1[0] * 1000 + $1[1]] }
        }
        // Per app: one 201, the rest 200, never a 500.
        #expect(statuses.sorted() == [200, 200, 200, 201, 1200, 1200, 1200, 1201])
        for created in [a, b] {
            let rows = try await app.services.database.query("""
                SELECT count(*)::int AS n, sum(session_count)::int AS sessions FROM subscriptions WHERE app_id = \(created.app.id)
                """)
            #expect(try rows[0].decode("n", as: Int.self) == 1)
            #expect(try rows[0].decode("sessions", as: Int.self) == 4)
        }
    }

    @Test func concurrentRegistrationsOfOneExternalIDMakeOneUser() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let statuses = await withTaskGroup(of: Int.self) { group in
            for index in 0..<12 {
                group.addTask {
                    let target = index.isMultiple(of: 2) ? a : b
                    return await app.registerDevice(target, ["token": .string(Registry.token(100 + index)), "external_id": "shared-user"]).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 201, count: 12))
        for created in [a, b] {
            #expect(try await count(app, "SELECT count(*)::int AS n FROM users WHERE app_id = \(created.app.id)") == 1)
            #expect(try await count(app, """
                SELECT count(*)::int AS n FROM user_aliases WHERE app_id = \(created.app.id) AND value = 'shared-user'
                """) == 1)
            let user = await app.request(.get, "/apps/\(created.app.id)/users/by/external_id/shared-user",
                                         headers: .restKey(created.restKey))
            #expect(user.json?.objectValue?["subscriptions"]?.arrayValue?.count == 6)
        }
    }

    /// The key is checked in the registration's own statement: a rotation through another
    /// process refuses the old key at once, and the refused call stores nothing.
    @Test func aRotatedSDKKeyIsRefusedAtOnceByAnotherProcess() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let other = try TestApp.make(conninfo: app.conninfo)
        #expect(await other.registerDevice(a, ["token": .string(Registry.token(1))]).status == 201)
        let rotated = try #require(try await AppStore.rotateSDKKey(a.app.id, now: app.services.now(), in: app.services.database))
        let refused = await other.registerDevice(a, ["token": .string(Registry.token(2)), "external_id": "u-2", "tags": ["x": "1"]])
        #expect(refused.status == 401)
        #expect(refused.json == ["detail": .string(Authentication.badSDKKey)])
        #expect(try await count(app, "SELECT count(*)::int AS n FROM subscriptions WHERE app_id = \(a.app.id)") == 1)
        #expect(try await count(app, "SELECT count(*)::int AS n FROM users") == 0)
        let withNewKey = await other.request(.post, "/v1/apps/\(a.app.id)/subscriptions", headers: .sdkKey(rotated),
                                             json: ["token": .string(Registry.token(2))])
        #expect(withNewKey.status == 201)
        // The other app's key still works on its own app.
        #expect(await other.registerDevice(b, ["token": .string(Registry.token(3))]).status == 201)
    }

    @Test func aLinkedSharedDemoDeviceRegistersAgainWithItsKeyOnly() async throws {
        let app = try await TestApp.make()
        let shared = try await app.createApp(AppSettings(name: "Demo", sharedDemo: true))
        let deviceKey = KeyMaterial.issue(prefix: "dev")
        let linked = try await app.deviceID(shared, ["token": .string(Registry.token(90))])
        try await app.services.database.transaction { connection in
            try connection.query("INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(shared.app.id), 'AAA')")
            try connection.query("""
                UPDATE subscriptions SET tenant_id = 'ten_a', device_key_digest = \(deviceKey.digest) WHERE id = \(linked)
                """)
        }
        let body: JSONValue = ["token": .string(Registry.token(90)), "external_id": "mallory"]
        let path = "/v1/apps/\(shared.app.id)/subscriptions"
        var headers = HTTPHeaders.sdkKey(shared.sdkKey)
        headers.add(name: "X-OP-Device-Key", value: "dev_wrong")
        let wrong = await app.request(.post, path, headers: headers, json: body)
        #expect(wrong.status == 401)
        #expect(wrong.json == ["detail": .string(NativeDevice.missingDeviceKey)])
        #expect(try await count(app, "SELECT count(*)::int AS n FROM users") == 0)
        headers = .sdkKey(shared.sdkKey)
        headers.add(name: "X-OP-Device-Key", value: deviceKey.value)
        let right = await app.request(.post, path, headers: headers, json: body)
        #expect(right.status == 200)
        #expect(right.json == ["id": .string(linked), "created": false])
        #expect(try await count(app, "SELECT count(*)::int AS n FROM users") == 1)
    }
}
