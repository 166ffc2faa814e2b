import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Two tenants of one shared demo app cannot read each other's messages, replay each other's
/// idempotency keys, or guess each other's link codes.
@Suite struct TenantsSeparationTests {
    typealias World = TenantsIsolationTests.World

    static func notification(_ key: String?, appID: String, restKey: String) -> (HTTPHeaders, JSONValue) {
        var headers = HTTPHeaders.restKey(restKey)
        if let key { headers.add(name: "Idempotency-Key", value: key) }
        return (headers, ["app_id": .string(appID), "included_segments": ["Subscribed Users"], "contents": ["en": "Hello"]])
    }

    static func postNotification(_ w: World, key: String?, restKey: String) async -> TestResponse {
        let (headers, body) = notification(key, appID: w.appID, restKey: restKey)
        return await w.app.request(.post, "/notifications", headers: headers, json: body)
    }

    static func view(_ w: World, _ id: String, restKey: String) async -> TestResponse {
        await w.app.request(.get, "/notifications/\(id)", headers: .restKey(restKey), query: ["app_id": w.appID])
    }

    // MARK: reading a message

    @Test func anotherTenantsMessageIsAsMissingAsAnUnknownOne() async throws {
        let w = try await World.make()
        let sent = await Self.postNotification(w, key: nil, restKey: w.acme.restKey)
        let id = try #require(sent.json?.objectValue?["id"]?.stringValue)
        #expect(await Self.view(w, id, restKey: w.acme.restKey).status == 200)
        #expect(await Self.view(w, id, restKey: w.demo.shared.restKey).status == 200)
        let foreign = await Self.view(w, id, restKey: w.globex.restKey)
        let missing = await Self.view(w, "msg_unknown", restKey: w.globex.restKey)
        #expect(foreign.status == 404)
        #expect(missing.status == 404)
        #expect(foreign.json == ["errors": [.string("notification '\(id)' not found")]])
        #expect(missing.json == ["errors": ["notification 'msg_unknown' not found"]])
        #expect(foreign.headers["Content-Type"] == missing.headers["Content-Type"])
    }

    /// A Live Activity start is the tenant's message too: it reads it, the other tenant does not.
    @Test func aTenantsLiveActivityStartIsItsOwn() async throws {
        let w = try await World.make()
        try await Self.registerPushToStart(w, w.acmeDevice)
        let started = await w.rest(.post, "/activities/activity/Delivery", key: w.acme.restKey,
                                   TenantsIsolationTests.start(["included_segments": ["Subscribed Users"]]))
        #expect(started.status == 201)
        let id = try #require(started.json?.objectValue?["notification_id"]?.stringValue)
        #expect(await Self.view(w, id, restKey: w.acme.restKey).status == 200)
        #expect(await Self.view(w, id, restKey: w.globex.restKey).status == 404)
        let listed = await w.app.request(.get, "/notifications", headers: .restKey(w.globex.restKey), query: ["app_id": w.appID])
        #expect(listed.json?.objectValue?["total_count"] == 0)
    }

    // MARK: idempotency keys

    @Test func tenantsUsingOneIdempotencyKeyHeaderGetTheirOwnMessages() async throws {
        let w = try await World.make()
        var ids: [String] = []
        for key in [w.acme.restKey, w.globex.restKey, w.demo.shared.restKey] {
            let first = await Self.postNotification(w, key: "order-42", restKey: key)
            #expect(first.status == 200)
            #expect(first.headers["Idempotent-Replayed"] == nil)
            ids.append(try #require(first.json?.objectValue?["id"]?.stringValue))
        }
        #expect(Set(ids).count == 3)
        // Each caller's repeat replays its own first answer, exactly as before.
        for (key, id) in zip([w.acme.restKey, w.globex.restKey, w.demo.shared.restKey], ids) {
            let repeated = await Self.postNotification(w, key: "order-42", restKey: key)
            #expect(repeated.status == 200)
            #expect(repeated.headers["Idempotent-Replayed"] == "true")
            #expect(repeated.json == ["id": .string(id)])
        }
        let messages = try await w.app.services.database.query("SELECT count(*)::int AS n FROM messages")
        #expect(try messages[0].decode("n", as: Int.self) == 3)
    }

    @Test func tenantsUsingOneStartIdempotencyKeyGetTheirOwnStarts() async throws {
        let w = try await World.make()
        try await Self.registerPushToStart(w, w.acmeDevice)
        try await Self.registerPushToStart(w, w.globexDevice)
        var body = TenantsIsolationTests.start(["included_segments": ["Subscribed Users"]]).objectValue ?? [:]
        body["idempotency_key"] = "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0"
        var ids: [String] = []
        for key in [w.acme.restKey, w.globex.restKey] {
            let first = await w.rest(.post, "/activities/activity/Delivery", key: key, .object(body))
            #expect(first.status == 201)
            #expect(first.headers["Idempotent-Replayed"] == nil)
            #expect(first.headers["OpenPush-Audience-Total"] == "1")
            ids.append(try #require(first.json?.objectValue?["notification_id"]?.stringValue))
        }
        #expect(ids[0] != ids[1])
        for (key, id) in zip([w.acme.restKey, w.globex.restKey], ids) {
            let repeated = await w.rest(.post, "/activities/activity/Delivery", key: key, .object(body))
            #expect(repeated.status == 201)
            #expect(repeated.headers["Idempotent-Replayed"] == "true")
            #expect(repeated.json == ["notification_id": .string(id)])
        }
        let deliveries = try await w.app.services.database.query("""
            SELECT q.subscription_id FROM \(TestApp.queuedRecipients) ORDER BY q.subscription_id
            """).map { try $0.decode("subscription_id", as: String.self) }
        #expect(Set(deliveries) == [w.acmeDevice.subscriptionID, w.globexDevice.subscriptionID])
        #expect(deliveries.count == 2)
    }

    static func registerPushToStart(_ w: World, _ device: SharedDemo.Device) async throws {
        let registered = await w.demo.native("/live-activities/push-to-start", [
            "token": .string(device.token), "activity_type": "Delivery",
            "push_to_start_token": .string(String(repeating: "e", count: 64)),
        ], deviceKey: device.deviceKey)
        try #require(registered.status == 200, "push-to-start registration failed: \(registered.text)")
    }

    // MARK: link codes

    static let tooMany: JSONValue = ["detail": .string(TenantStore.tooManyWrongCodes)]

    @Test func tenWrongCodesPerDeviceThenTooManyRequests() async throws {
        let clock = ManualClock()
        let demo = try await SharedDemo.make(now: clock.source)
        let acme = try await demo.createTenant()
        let token = Registry.token(1)
        _ = try await demo.app.deviceID(demo.shared, ["token": .string(token)])
        for attempt in 0..<10 {
            let wrong = await demo.link(token: token, code: attempt.isMultiple(of: 2) ? "ZZZZ-ZZZZ-ZZZZ" : "nonsense")
            #expect(wrong.status == 404, "attempt \(attempt)")
            #expect(wrong.json == ["detail": "unknown link code"])
            clock.advance(by: 10)
        }
        // Even the right code waits now: otherwise the 429 would only be advice to a guesser.
        let refused = await demo.link(token: token, code: acme.linkCode)
        #expect(refused.status == 429)
        #expect(refused.json == Self.tooMany)
        #expect(refused.headers["Retry-After"] == "500")
        // Another device of the app is not held back.
        let other = Registry.token(2)
        _ = try await demo.app.deviceID(demo.shared, ["token": .string(other)])
        #expect(await demo.link(token: other, code: acme.linkCode).status == 200)
        // Once the first failure is ten minutes old, the device may try again.
        clock.advance(by: 499)
        #expect(await demo.link(token: token, code: acme.linkCode).headers["Retry-After"] == "1")
        clock.advance(by: 1)
        let linked = await demo.link(token: token, code: acme.linkCode)
        #expect(linked.status == 200)
        #expect(linked.json?.objectValue?["tenant_id"] == .string(acme.id))
    }

    /// The count lives in PostgreSQL: a second process over the same database refuses too.
    @Test func theWrongCodeCountHoldsAcrossProcesses() async throws {
        let clock = ManualClock()
        let demo = try await SharedDemo.make(now: clock.source)
        let acme = try await demo.createTenant()
        let token = Registry.token(1)
        _ = try await demo.app.deviceID(demo.shared, ["token": .string(token)])
        let second = try TestApp.make(conninfo: demo.app.conninfo, now: clock.source)
        for app in [demo.app, second] {
            for _ in 0..<5 {
                let wrong = await app.request(.post, "/v1/apps/\(demo.appID)/devices/link", headers: .sdkKey(demo.shared.sdkKey),
                                              json: ["token": .string(token), "code": "ZZZZZZZZZZZZ"])
                #expect(wrong.status == 404)
            }
        }
        for app in [demo.app, second] {
            let refused = await app.request(.post, "/v1/apps/\(demo.appID)/devices/link", headers: .sdkKey(demo.shared.sdkKey),
                                            json: ["token": .string(token), "code": .string(acme.linkCode)])
            #expect(refused.status == 429)
            #expect(refused.json == Self.tooMany)
            #expect(refused.headers["Retry-After"] == "600")
        }
        await second.services.database.close()
    }

    /// Codes issued before codes grew to 60 bits are replaced by the migration, each drawn anew.
    @Test func theMigrationReplacesShortCodes() async throws {
        let empty = try await TestDatabase.create().createEmptySibling()
        let app = try TestApp.make(conninfo: empty)
        let migrator = Migrator(pool: app.services.database)
        try await migrator.apply(app.services.migrations.filter { $0.version < 13 })
        let shared = try await app.createApp(AppSettings(name: "Shared demo", sharedDemo: true))
        try await app.services.database.query("""
            INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(shared.app.id), 'K7QXM2PA'), ('ten_b', \(shared.app.id), 'ABCDEFGH')
            """)
        try await migrator.apply(app.services.migrations, functions: app.services.functions)
        let codes = try await app.services.database.query("SELECT link_code FROM tenants ORDER BY id")
            .map { try $0.decode("link_code", as: String.self) }
        #expect(codes.count == 2)
        #expect(codes.allSatisfy { LinkCode.normalized($0) == $0 })
        #expect(Set(codes).count == 2)
        await app.services.database.close()
    }
}
