import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// `/apps/{app_id}/tenants` with the organization key: create, list, delete.
@Suite struct TenantsRoutesTests {
    static let organization = AppsTestSupport.organization

    @Test func createsATenantWithItsKeyAndLinkCode() async throws {
        let demo = try await SharedDemo.make()
        let response = await demo.app.request(.post, demo.tenantsPath, headers: Self.organization, json: ["name": "Acme"])
        #expect(response.status == 201)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try #require(response.json?.objectValue)
        #expect(body.keys.sorted() == ["app_id", "created_at", "id", "link_code", "linked_devices", "name", "rest_api_key"])
        #expect(Identifier.isWellFormed(body["id"]?.stringValue ?? "", prefix: "ten"))
        #expect(body["app_id"] == .string(demo.appID))
        #expect(body["name"] == "Acme")
        #expect(body["linked_devices"] == 0)
        let code = try #require(body["link_code"]?.stringValue)
        #expect(LinkCode.normalized(code) == code)
        let key = try #require(body["rest_api_key"]?.stringValue)
        #expect(key.hasPrefix("rest_"))
        // The key opens the app's REST routes, as this tenant, and is not one of the app's own keys.
        #expect(await demo.app.restKeyStatus(demo.appID, key) == 200)
        let rows = try await demo.app.services.database.query("SELECT tenant_id FROM api_keys WHERE digest = \(KeyMaterial.digest(key))")
        #expect(try rows[0].decode("tenant_id", as: String?.self) == body["id"]?.stringValue)
        let ownKeys = await demo.app.request(.get, "/apps/\(demo.appID)/auth/tokens", headers: Self.organization)
        #expect(ownKeys.json?.objectValue?["tokens"]?.arrayValue?.count == 1)
    }

    @Test func anEmptyBodyMakesATenantWithoutAName() async throws {
        let demo = try await SharedDemo.make()
        let response = await demo.app.request(.post, demo.tenantsPath, headers: Self.organization)
        #expect(response.status == 201)
        #expect(response.json?.objectValue?["name"] == .null)
        var codes: Set<String> = []
        for _ in 0..<3 { codes.insert(try await demo.createTenant().linkCode) }
        #expect(codes.count == 3)
    }

    @Test func theTenantKeySeesOnlyItsLinkedDevices() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        let mine = try await demo.linkedDevice(1, to: acme)
        let theirs = try await demo.linkedDevice(2, to: globex)
        let unlinked = try await demo.app.deviceID(demo.shared, ["token": .string(Registry.token(3))])
        let path = { (id: String) in "/apps/\(demo.appID)/subscriptions/\(id)" }
        let own = await demo.app.request(.get, path(mine.subscriptionID), headers: .restKey(acme.restKey))
        #expect(own.status == 200)
        #expect(own.json?.objectValue?["id"] == .string(mine.subscriptionID))
        for id in [theirs.subscriptionID, unlinked] {
            let other = await demo.app.request(.get, path(id), headers: .restKey(acme.restKey))
            #expect(other.status == 403)
            #expect(other.json == ["errors": [.string("subscription '\(id)' belongs to another tenant of this app")]])
        }
        // The app's own key still sees every device.
        #expect(await demo.app.request(.get, path(theirs.subscriptionID), headers: .restKey(demo.shared.restKey)).status == 200)
    }

    @Test func createErrors() async throws {
        let demo = try await SharedDemo.make()
        let tooLong = await demo.app.request(.post, demo.tenantsPath, headers: Self.organization,
                                             json: ["name": .string(String(repeating: "x", count: 129)), "colour": "red"])
        #expect(tooLong.status == 400)
        #expect(tooLong.json == ["errors": ["name must be 128 characters or fewer", "unknown field 'colour'"]])
        let wrongType = await demo.app.request(.post, demo.tenantsPath, headers: Self.organization, json: ["name": 7])
        #expect(wrongType.status == 400)
        #expect(wrongType.json == ["errors": ["name must be a string, got number"]])
        let notAnObject = await demo.app.request(.post, demo.tenantsPath, headers: Self.organization, json: ["a", "b"])
        #expect(notAnObject.json == ["errors": ["the request body must be a JSON object"]])

        let ordinary = try await demo.app.createApp()
        let notShared = await demo.app.request(.post, "/apps/\(ordinary.app.id)/tenants", headers: Self.organization, json: [:])
        #expect(notShared.status == 400)
        #expect(notShared.json == ["errors": [.string("app '\(ordinary.app.id)' is not a shared demo app")]])

        let unknown = await demo.app.request(.post, "/apps/app_nope/tenants", headers: Self.organization, json: [:])
        #expect(unknown.status == 404)
        #expect(unknown.json == ["errors": ["unknown app 'app_nope'"]])
        let count = try await demo.app.services.database.query("SELECT count(*)::int AS n FROM tenants").firstRow().decode("n", as: Int.self)
        #expect(count == 0)
    }

    @Test func listsTenantsWithoutKeys() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        _ = try await demo.linkedDevice(1, to: acme)
        _ = try await demo.linkedDevice(2, to: acme)
        let response = await demo.app.request(.get, demo.tenantsPath, headers: Self.organization)
        #expect(response.status == 200)
        let listed = try #require(response.json?.objectValue?["tenants"]?.arrayValue)
        let tenants = listed.compactMap(\.objectValue)
        #expect(tenants.map { $0["id"]?.stringValue } == [acme.id, globex.id])
        #expect(tenants.map { $0["link_code"]?.stringValue } == [acme.linkCode, globex.linkCode])
        #expect(tenants.map { $0["linked_devices"]?.intValue } == [2, 0])
        #expect(tenants.allSatisfy { $0["rest_api_key"] == nil })
        #expect(!response.text.contains(acme.restKey))

        let ordinary = try await demo.app.createApp()
        let none = await demo.app.request(.get, "/apps/\(ordinary.app.id)/tenants", headers: Self.organization)
        #expect(none.json == ["tenants": []])
        let unknown = await demo.app.request(.get, "/apps/app_nope/tenants", headers: Self.organization)
        #expect(unknown.status == 404)
    }

    @Test func deletingATenantUnlinksItsDevicesAndRevokesItsKey() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        let device = try await demo.linkedDevice(1, to: acme)
        let kept = try await demo.linkedDevice(2, to: globex)
        let response = await demo.app.request(.delete, "\(demo.tenantsPath)/\(acme.id)", headers: Self.organization)
        #expect(response.status == 200)
        #expect(response.json == ["success": true, "unlinked_devices": 1])
        #expect(await demo.app.restKeyStatus(demo.appID, acme.restKey) == 401)
        #expect(await demo.app.restKeyStatus(demo.appID, globex.restKey) == 200)
        let row = try await demo.app.services.database.query("""
            SELECT tenant_id, device_key_digest, retired_at IS NULL AS live FROM subscriptions WHERE id = \(device.subscriptionID)
            """).firstRow()
        #expect(try row.decode("tenant_id", as: String?.self) == nil)
        #expect(try row.decode("device_key_digest", as: [UInt8]?.self) == nil)
        #expect(try row.decode("live", as: Bool.self))
        // Its old device key opens nothing; it can link again, to another tenant, without one.
        let stale = await demo.native("/subscriptions/retire", ["token": .string(device.token)], deviceKey: device.deviceKey)
        #expect(stale.status == 401)
        #expect(await demo.link(token: device.token, code: globex.linkCode).status == 200)
        // The other tenant's device is untouched.
        #expect(await demo.native("/subscriptions", ["token": .string(kept.token)], deviceKey: kept.deviceKey).status == 200)

        let again = await demo.app.request(.delete, "\(demo.tenantsPath)/\(acme.id)", headers: Self.organization)
        #expect(again.status == 404)
        #expect(again.json == ["errors": [.string("unknown tenant '\(acme.id)'")]])
        let unknownApp = await demo.app.request(.delete, "/apps/app_nope/tenants/\(globex.id)", headers: Self.organization)
        #expect(unknownApp.status == 404)
        #expect(unknownApp.json == ["errors": ["unknown app 'app_nope'"]])
    }

    /// Only the organization key opens these routes: no REST key (the app's, a tenant's) or SDK key.
    @Test func everyRouteTakesTheOrganizationKeyOnly() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant()
        let routes: [(HTTPMethod, String, JSONValue?)] = [
            (.post, demo.tenantsPath, ["name": "Intruder"]),
            (.get, demo.tenantsPath, nil),
            (.delete, "\(demo.tenantsPath)/\(acme.id)", nil),
        ]
        let keys: [HTTPHeaders] = [[:], .restKey(demo.shared.restKey), .restKey(acme.restKey), .sdkKey(demo.shared.sdkKey),
                                   ["Authorization": "Key not-the-org-key-at-all"]]
        for (method, path, body) in routes {
            for headers in keys {
                let response = await demo.app.send(method, path, headers: headers, json: body)
                #expect(response.status == 401, "\(method) \(path)")
                #expect(response.json == ["errors": [.string(Authentication.badOrganizationKey)]])
            }
        }
        let tenants = try await demo.app.services.database.query("SELECT id FROM tenants")
        #expect(tenants.count == 1)
    }

    /// A tenant of one app is invisible through another app's path.
    @Test func anotherAppsPathNeverReachesTheTenant() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant()
        let other = try await demo.app.createApp(AppSettings(name: "Other", sharedDemo: true))
        let otherPath = "/apps/\(other.app.id)/tenants"
        #expect(await demo.app.request(.get, otherPath, headers: Self.organization).json == ["tenants": []])
        let delete = await demo.app.request(.delete, "\(otherPath)/\(acme.id)", headers: Self.organization)
        #expect(delete.status == 404)
        #expect(await demo.app.restKeyStatus(demo.appID, acme.restKey) == 200)
        // The tenant's key opens nothing of the other app.
        #expect(await demo.app.restKeyStatus(other.app.id, acme.restKey) == 401)
    }
}
