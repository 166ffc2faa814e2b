import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// The user routes of issue 40 with a shared demo tenant's key: its own users and devices only.
@Suite struct UserTenantTests {
    @Test func aTenantUpdatesItsOwnUsersAndTagsOnlyItsDevices() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        let acmeDevice = try await demo.linkedDevice(1, to: acme, externalID: "u-acme")
        _ = try await demo.linkedDevice(2, to: globex, externalID: "u-globex")
        // Nobody's device of Acme's user: the tenant does not see it, so does not tag it.
        let unlinked = try await demo.app.deviceID(demo.shared, ["token": .string(Registry.token(3)), "external_id": "u-acme"])
        let users = "/apps/\(demo.appID)/users/by/external_id/"
        let body: JSONValue = ["properties": ["tags": ["plan": "pro"]], "deltas": ["session_count": 1]]

        let own = await demo.app.request(.patch, users + "u-acme", headers: .restKey(acme.restKey), json: body)
        #expect(own.status == 200)
        #expect(await demo.app.subscription(demo.shared, acmeDevice.subscriptionID).json?.objectValue?["tags"] == ["plan": "pro"])
        #expect(await demo.app.subscription(demo.shared, unlinked).json?.objectValue?["tags"] == [:])

        let theirs = await demo.app.request(.patch, users + "u-globex", headers: .restKey(acme.restKey), json: body)
        #expect(theirs.status == 403)
        #expect(theirs.json == ["errors": ["this user belongs to another tenant of this app"]])
        let globexUser = await demo.app.request(.get, users + "u-globex", headers: .restKey(globex.restKey))
        #expect(globexUser.json?.objectValue?["properties"]?.objectValue?["tags"] == [:])

        // A device linked later takes nothing from a shared demo's user: the tags Acme set do not
        // reach a device Globex links to the same external_id.
        let late = try await demo.linkedDevice(4, to: globex, externalID: "u-acme")
        #expect(await demo.app.subscription(demo.shared, late.subscriptionID).json?.objectValue?["tags"] == [:])
    }

    @Test func aTenantReachesOnlyItsOwnDevicesUsers() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let globex = try await demo.createTenant("Globex")
        let acmeDevice = try await demo.linkedDevice(1, to: acme, externalID: "u-acme")
        let globexDevice = try await demo.linkedDevice(2, to: globex, externalID: "u-globex")
        let path = { (id: String) in "/apps/\(demo.appID)/subscriptions/\(id)/user/identity" }

        let mine = await demo.app.request(.get, path(acmeDevice.subscriptionID), headers: .restKey(acme.restKey))
        #expect(mine.json?.objectValue?["identity"]?.objectValue?["external_id"] == "u-acme")
        let message: JSONValue = ["errors": [.string("subscription '\(globexDevice.subscriptionID)' belongs to another tenant of this app")]]
        for (method, body) in [(HTTPMethod.get, nil), (.patch, ["identity": ["crm": "stolen"]] as JSONValue?)] {
            let refused = await demo.app.send(method, path(globexDevice.subscriptionID), headers: .restKey(acme.restKey), json: body)
            #expect(refused.status == 403, "\(method)")
            #expect(refused.json == message)
        }
        let globexIdentity = await demo.app.request(.get, path(globexDevice.subscriptionID), headers: .restKey(globex.restKey))
        #expect(globexIdentity.json?.objectValue?["identity"]?.objectValue?["crm"] == nil)
    }
}
