import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// The key checks every app route starts with, exercised through routes that exist only here.
@Suite struct AuthenticationTests {
    static let routes: @Sendable (inout Router<RouteHandler>) -> Void = { router in
        router.add(.get, "/apps/{app_id}/test/rest") { context in
            let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
            return .json(["app": .string(principal.app.id), "key": .string(principal.keyID)])
        }
        router.add(.get, "/v1/apps/{app_id}/test/sdk") { context in
            let app = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
            return .json(["app": .string(app.id)])
        }
        router.add(.get, "/test/org") { context in
            try Authentication.requireOrganization(context)
            return .json(["ok": true])
        }
    }

    static let badKey: JSONValue = ["errors": [.string(Authentication.badRESTKey)]]

    @Test func everyRESTKeySpellingIsAccepted() async throws {
        let app = try await TestApp.make(routes: Self.routes)
        let created = try await app.createApp()
        let path = "/apps/\(created.app.id)/test/rest"
        for headers: HTTPHeaders in [["Authorization": "Key \(created.restKey)"], ["Authorization": "Basic \(created.restKey)"],
                                     ["Authorization": "Bearer \(created.restKey)"], ["Authorization": created.restKey],
                                     ["X-OP-API-Key": created.restKey]] {
            let response = await app.request(.get, path, headers: headers)
            #expect(response.status == 200)
            #expect(response.json == ["app": .string(created.app.id), "key": .string(created.restKeyID)])
        }
    }

    @Test func wrongMissingOrDecodedKeysAre401() async throws {
        let app = try await TestApp.make(routes: Self.routes)
        let created = try await app.createApp()
        let path = "/apps/\(created.app.id)/test/rest"
        let basic = "Basic " + Data("user:\(created.restKey)".utf8).base64EncodedString()
        for headers: HTTPHeaders in [[:], ["Authorization": "Key wrong"], ["Authorization": basic], ["Authorization": "Key"]] {
            let response = await app.request(.get, path, headers: headers)
            #expect(response.status == 401)
            #expect(response.json == Self.badKey)
        }
    }

    @Test func anotherAppsKeyIs401AndUnknownAppIs404() async throws {
        let app = try await TestApp.make(routes: Self.routes)
        let first = try await app.createApp()
        let second = try await app.createApp()
        let crossed = await app.request(.get, "/apps/\(first.app.id)/test/rest", headers: .restKey(second.restKey))
        #expect(crossed.status == 401)
        #expect(crossed.json == Self.badKey)
        let unknown = await app.request(.get, "/apps/app_nothere/test/rest", headers: .restKey(first.restKey))
        #expect(unknown.status == 404)
        #expect(unknown.json == ["errors": ["unknown app 'app_nothere'"]])
    }

    @Test func sdkKeyGuardsNativeRoutes() async throws {
        let app = try await TestApp.make(routes: Self.routes)
        let first = try await app.createApp()
        let second = try await app.createApp()
        #expect(await app.request(.get, "/v1/apps/\(first.app.id)/test/sdk", headers: .sdkKey(first.sdkKey)).status == 200)
        let crossed = await app.request(.get, "/v1/apps/\(first.app.id)/test/sdk", headers: .sdkKey(second.sdkKey))
        #expect(crossed.status == 401)
        #expect(crossed.json == ["detail": .string(Authentication.badSDKKey)])
        // The REST key is not an SDK key.
        #expect(await app.request(.get, "/v1/apps/\(first.app.id)/test/sdk", headers: .sdkKey(first.restKey)).status == 401)
        let unknown = await app.request(.get, "/v1/apps/app_nothere/test/sdk", headers: .sdkKey(first.sdkKey))
        #expect(unknown.status == 404)
        #expect(unknown.json == ["detail": "unknown app 'app_nothere'"])
    }

    @Test func organizationKeyIsRequiredAndRefusedWhenUnset() async throws {
        let key = "org-key-for-tests-0001"
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = key }, routes: Self.routes)
        #expect(await app.request(.get, "/test/org", headers: ["Authorization": "Key \(key)"]).status == 200)
        #expect(await app.request(.get, "/test/org", headers: ["Authorization": "Key nope"]).status == 401)
        let unset = try await TestApp.make(routes: Self.routes)
        let refused = await unset.request(.get, "/test/org", headers: ["Authorization": "Key \(key)"])
        #expect(refused.status == 401)
        #expect(refused.json == ["errors": [.string(Authentication.badOrganizationKey)]])
    }

    @Test func keysAreStoredOnlyAsDigests() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let rows = try await app.services.database.query("SELECT digest FROM api_keys WHERE app_id = \(created.app.id)")
        let digest: [UInt8] = try rows[0].decode("digest")
        #expect(digest == KeyMaterial.digest(created.restKey))
        #expect(digest.count == 32)
        #expect(created.restKey.hasPrefix("rest_") && created.restKey.count == 5 + 64)
        #expect(created.sdkKey.hasPrefix("sdk_") && created.sdkKey != created.restKey)
    }
}
