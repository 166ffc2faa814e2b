import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The explicit-targeting resolver, run against real rows.
@Suite struct AudienceStoreTests {
    struct World {
        var app: TestApp
        var a: CreatedApp
        var devices: [String: String]
        var userWithCRM: String

        /// The ids the fragment selects, sorted, from inside a larger statement (so its placeholders
        /// are renumbered after the statement's own).
        func resolve(_ aliases: [String: [String]] = [:], ids: [String] = [], tenantID: String? = nil) async throws -> [String] {
            let fragment = AudienceStore.subscriptionIDs(appID: a.app.id, includeAliases: aliases, includeSubscriptionIDs: ids,
                                                         tenantID: tenantID)
            let rows = try await app.services.database.query("""
                SELECT id FROM subscriptions WHERE app_id = \(a.app.id) AND id IN (\(fragment)) ORDER BY id
                """)
            return try rows.map { try $0.decode("id") }
        }

        func names(_ ids: [String]) -> [String] {
            ids.compactMap { id in devices.first { $0.value == id }?.key }.sorted()
        }
    }

    static func world() async throws -> World {
        let app = try await TestApp.make()
        let a = try await app.createApp()
        let b = try await app.createApp()
        var devices: [String: String] = [:]
        devices["u1-phone"] = try await app.deviceID(a, ["token": .string(Registry.token(1)), "external_id": "u-1"])
        devices["u1-off"] = try await app.deviceID(a, ["token": .string(Registry.token(2)), "external_id": "u-1", "enabled": false])
        devices["u2-retired"] = try await app.deviceID(a, ["token": .string(Registry.token(3)), "external_id": "u-2"])
        _ = await app.request(.delete, "/apps/\(a.app.id)/subscriptions/\(devices["u2-retired"]!)", headers: .restKey(a.restKey))
        devices["u3-tablet"] = try await app.deviceID(a, ["token": .string(Registry.token(4)), "external_id": "u-3"])
        devices["anonymous"] = try await app.deviceID(a, ["token": .string(Registry.token(5))])
        devices["b-u1"] = try await app.deviceID(b, ["token": .string(Registry.token(6)), "external_id": "u-1"])
        let made = await app.request(.patch, "/apps/\(a.app.id)/users/by/external_id/u-3/identity", headers: .restKey(a.restKey),
                                     json: ["identity": ["crm": "7"]])
        // App B has a user with the same custom alias: it must never leak into A's audience.
        _ = await app.request(.post, "/apps/\(b.app.id)/users", headers: .restKey(b.restKey),
                              json: ["identity": ["external_id": "u-1", "crm": "7"]])
        let user = try #require(made.json?.objectValue?["identity"]?.objectValue?["openpush_id"]?.stringValue)
        return World(app: app, a: a, devices: devices, userWithCRM: user)
    }

    @Test func resolvesEveryLabelToLiveEnabledDevicesOfTheApp() async throws {
        let w = try await Self.world()
        #expect(w.names(try await w.resolve(["external_id": ["u-1", "u-2", "u-9"]])) == ["u1-phone"])
        #expect(w.names(try await w.resolve(["crm": ["7"]])) == ["u3-tablet"])
        #expect(w.names(try await w.resolve(["onesignal_id": [w.userWithCRM]])) == ["u3-tablet"])
        #expect(w.names(try await w.resolve(["subscription_id": [w.devices["anonymous"]!]])) == ["anonymous"])
        #expect(w.names(try await w.resolve(["openpush_id": [w.devices["u3-tablet"]!]])) == ["u3-tablet"])
        let ids = ["anonymous", "u2-retired", "u1-off", "b-u1"].map { w.devices[$0]! }
        #expect(w.names(try await w.resolve(ids: ids)) == ["anonymous"])
        // Labels and ids are a union.
        #expect(w.names(try await w.resolve(["external_id": ["u-1"], "crm": ["7"]], ids: [w.devices["anonymous"]!]))
            == ["anonymous", "u1-phone", "u3-tablet"])
    }

    @Test func acceptsTheSendBodysAliasTargets() async throws {
        let w = try await Self.world()
        let fragment = AudienceStore.subscriptionIDs(appID: w.a.app.id, aliases: [AliasTarget(label: "external_id", values: ["u-1"]),
                                                                                AliasTarget(label: "crm", values: ["7"])])
        let rows = try await w.app.services.database.query("SELECT count(*)::int AS n FROM (\(fragment)) audience")
        #expect(try rows[0].decode("n", as: Int.self) == 2)
    }

    @Test func nothingNamedSelectsNothing() async throws {
        let w = try await Self.world()
        #expect(try await w.resolve().isEmpty)
        #expect(try await w.resolve(["external_id": []]).isEmpty)
        #expect(try await w.resolve(["crm": ["nope"], "unknown_label": ["u-1"]]).isEmpty)
    }

    @Test func aTenantReachesOnlyItsDevices() async throws {
        let w = try await Self.world()
        let appID = w.a.app.id
        let phone = w.devices["u1-phone"]!
        try await w.app.services.database.transaction { connection in
            try connection.query("INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_a', \(appID), 'AAA')")
            try connection.query("UPDATE subscriptions SET tenant_id = 'ten_a' WHERE id = \(phone)")
        }
        let everyone: [String: [String]] = ["external_id": ["u-1", "u-3"]]
        #expect(w.names(try await w.resolve(everyone)) == ["u1-phone", "u3-tablet"])
        #expect(w.names(try await w.resolve(everyone, tenantID: "ten_a")) == ["u1-phone"])
        #expect(try await w.resolve(everyone, tenantID: "ten_b").isEmpty)
    }

    @Test func valuesAreBoundNeverSpliced() {
        let fragment = AudienceStore.subscriptionIDs(appID: "app_x", includeAliases: ["it's": ["'; DROP TABLE users; --"]])
        #expect(!fragment.sql.contains("DROP"))
        #expect(!fragment.sql.contains("it's"))
        #expect(fragment.binds.count == 5)
    }
}
