import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// `GET`, `PATCH`, `DELETE /apps/{app_id}/subscriptions/{subscription_id}` with the REST key.
@Suite struct SubscriptionRESTRoutesTests {
    static func path(_ app: CreatedApp, _ id: String) -> String { "/apps/\(app.app.id)/subscriptions/\(id)" }

    @Test func patchMergesTagsAndTogglesEnabled() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await app.deviceID(created, ["token": .string(Registry.token(1)), "tags": ["a": "1", "b": "2"]])
        let wrapped = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey),
                                        json: ["subscription": ["enabled": false, "tags": ["b": "", "c": "3"]]])
        #expect(wrapped.status == 200)
        let view = try #require(wrapped.json?.objectValue)
        #expect(view["id"] == .string(id))
        #expect(view["tags"] == ["a": "1", "c": "3"])
        #expect(view["enabled"] == false)
        #expect(view["notification_types"] == -2)

        let bare = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey), json: ["enabled": true])
        #expect(bare.status == 200)
        #expect(bare.json?.objectValue?["notification_types"] == 1)
        #expect(bare.json?.objectValue?["tags"] == ["a": "1", "c": "3"])
    }

    /// A stored environment this build does not know is a broken row, never read as production;
    /// another app's device reads as before.
    @Test func anUnknownStoredEnvironmentIsAnErrorNotProduction() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        let broken = try await app.deviceID(first, ["token": .string(Registry.token(40)), "environment": "sandbox"])
        let other = try await app.deviceID(second, ["token": .string(Registry.token(41)), "environment": "sandbox"])
        // Only a row written around the CHECK constraint can hold one.
        let database = app.services.database
        _ = try await database.query("ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_environment_check")
        _ = try await database.query("UPDATE subscriptions SET environment = 'staging' WHERE id = \(broken)")
        await #expect(throws: InvariantViolation.self) {
            try await database.transaction { connection in
                _ = try SubscriptionStore.find(id: broken, appID: first.app.id, in: connection)
            }
        }
        let view = try #require(await app.subscription(second, other).json?.objectValue)
        #expect(view["environment"] == "sandbox")
    }

    @Test func patchBodyErrors() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await app.deviceID(created, ["token": .string(Registry.token(2))])
        let bad = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey),
                                    json: ["subscription": ["enabled": "no", "token": "x y", "colour": "red"]])
        #expect(bad.status == 400)
        // Without a type the token may be an Android device's (opaque): only its characters are checked.
        #expect(bad.json == ["errors": ["subscription.token must be printable ASCII without spaces (! to ~)",
                                        "subscription.enabled must be a boolean, got string", "unknown field 'subscription.colour'"]])
        let empty = await app.request(.patch, Self.path(created, id), headers: .restKey(created.restKey), json: [:])
        #expect(empty.status == 400)
        #expect(empty.json == ["errors": [.string(SubscriptionChanges.nothingToChange)]])
    }

    @Test func deleteRetires() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await app.deviceID(created, ["token": .string(Registry.token(3))])
        for _ in 0..<2 {  // retiring again is still a success
            let deleted = await app.request(.delete, Self.path(created, id), headers: .restKey(created.restKey))
            #expect(deleted.status == 200)
            #expect(deleted.json == ["success": true])
        }
        let view = try #require(await app.subscription(created, id).json?.objectValue)
        #expect(view["retired"] == true)
        #expect(view["notification_types"] == -2)
        #expect(view["enabled"] == false)  // agrees with notification_types
    }

    @Test func unknownIDsAre404OnEveryMethod() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        for (method, body) in [(HTTPMethod.get, nil), (.patch, ["enabled": true] as JSONValue?), (.delete, nil)] {
            let path = Self.path(created, "sub_nothere")
            let response = await app.send(method, path, headers: .restKey(created.restKey), json: body)
            #expect(response.status == 404)
            #expect(response.json == ["errors": ["subscription 'sub_nothere' not found"]])
        }
        let unknownApp = await app.request(.get, "/apps/app_nothere/subscriptions/sub_x", headers: .restKey(created.restKey))
        #expect(unknownApp.status == 404)
        #expect(unknownApp.json == ["errors": ["unknown app 'app_nothere'"]])
    }

    @Test func anotherAppsKeyOrSubscriptionNeverCrosses() async throws {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        let aDevice = try await app.deviceID(a, ["token": .string(Registry.token(4))])
        let bDevice = try await app.deviceID(b, ["token": .string(Registry.token(5)), "tags": ["k": "v"]])
        for (method, body) in [(HTTPMethod.get, nil), (.patch, ["enabled": false] as JSONValue?), (.delete, nil)] {
            // B's key on A's path.
            let path = Self.path(a, aDevice)
            let crossedKey = await app.send(method, path, headers: .restKey(b.restKey), json: body)
            #expect(crossedKey.status == 401)
            #expect(crossedKey.json == ["errors": [.string(Authentication.badRESTKey)]])
            // B's subscription through A's path with A's key.
            let foreign = Self.path(a, bDevice)
            let crossedID = await app.send(method, foreign, headers: .restKey(a.restKey), json: body)
            #expect(crossedID.status == 404)
            #expect(crossedID.json == ["errors": [.string("subscription '\(bDevice)' not found")]])
        }
        let untouched = try #require(await app.subscription(b, bDevice).json?.objectValue)
        #expect(untouched["enabled"] == true)
        #expect(untouched["retired"] == false)
        #expect(await app.subscription(a, aDevice).json?.objectValue?["retired"] == false)
    }

    @Test func aTenantKeySeesOnlyItsOwnDevices() async throws {
        let app = try await TestApp.make()
        let shared = try await app.createApp(AppSettings(name: "Demo", sharedDemo: true))
        let mine = try await app.deviceID(shared, ["token": .string(Registry.token(6))])
        let theirs = try await app.deviceID(shared, ["token": .string(Registry.token(7))])
        let key = KeyMaterial.issue(prefix: "rest")
        let appID = shared.app.id
        try await app.services.database.transaction { connection in
            try connection.query("""
                INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(appID), 'AAA'), ('ten_b', \(appID), 'BBB')
                """)
            try connection.query("""
                INSERT INTO api_keys (id, app_id, tenant_id, name, digest) VALUES ('key_ta', \(appID), 'ten_a', 'a', \(key.digest))
                """)
            try connection.query("UPDATE subscriptions SET tenant_id = 'ten_a' WHERE id = \(mine)")
            try connection.query("UPDATE subscriptions SET tenant_id = 'ten_b' WHERE id = \(theirs)")
        }
        #expect(await app.request(.get, Self.path(shared, mine), headers: .restKey(key.value)).status == 200)
        let other = await app.request(.delete, Self.path(shared, theirs), headers: .restKey(key.value))
        #expect(other.status == 403)
        #expect(other.json == ["errors": [.string("subscription '\(theirs)' belongs to another tenant of this app")]])
        #expect(await app.subscription(shared, theirs).json?.objectValue?["retired"] == false)
    }
}
