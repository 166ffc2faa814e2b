import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// An app's REST keys (`/apps/{app_id}/auth/tokens…`) and SDK key rotation, and the
/// organization key on every `/apps` route.
@Suite struct AppsKeysTests {
    typealias Support = AppsTestSupport

    static func tokensPath(_ appID: String) -> String { "/apps/\(appID)/auth/tokens" }

    @Test func createdKeyIsShownOnceAndOpensTheApp() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let response = await app.request(.post, Self.tokensPath(created.app.id), headers: Support.organization,
                                         json: ["name": "billing backend"])
        #expect(response.status == 201)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try #require(response.json?.objectValue)
        let id = try #require(body["id"]?.stringValue)
        let token = try #require(body["token"]?.stringValue)
        #expect(Identifier.isWellFormed(id, prefix: "key"))
        #expect(body.keys == ["id", "name", "token", "created_at", "token_id", "formatted_token"])
        #expect(body["token_id"] == body["id"] && body["formatted_token"] == body["token"])
        #expect(body["name"] == "billing backend")
        #expect(token.hasPrefix("rest_") && token != created.restKey)
        #expect(await app.restKeyStatus(created.app.id, token) == 200)
        #expect(await app.request(.get, "/apps/\(created.app.id)/probe/rest", headers: .restKey(token)).json == ["key": .string(id)])
        // The first key still works too.
        #expect(await app.restKeyStatus(created.app.id, created.restKey) == 200)
    }

    @Test func createNeedsAName() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let path = Self.tokensPath(created.app.id)
        #expect(await app.request(.post, path, headers: Support.organization, json: [:]).json == ["errors": ["name is required"]])
        let long = await app.request(.post, path, headers: Support.organization,
                                     json: ["name": .string(String(repeating: "k", count: 129)), "scope": "all"])
        #expect(long.status == 400)
        #expect(long.json == ["errors": ["name must be 128 characters or fewer", "unknown field 'scope'"]])
        #expect(await app.request(.post, path, headers: Support.organization, json: [1]).status == 400)
    }

    @Test func listShowsNamesAndDatesButNeverValuesOrDigests() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let added = await app.request(.post, Self.tokensPath(created.app.id), headers: Support.organization, json: ["name": "ci"])
        let addedBody = try #require(added.json?.objectValue)
        let response = await app.request(.get, Self.tokensPath(created.app.id), headers: Support.organization)
        #expect(response.status == 200)
        let tokens = try #require(response.json?.objectValue?["tokens"]?.arrayValue)
        #expect(tokens.count == 2)
        #expect(tokens[0].objectValue?.keys == ["id", "name", "created_at", "rotated_at", "expires_at", "token_id", "updated_at",
                                                "ip_allowlist_mode", "ip_allowlist"])
        #expect(tokens[0].objectValue?["id"] == .string(created.restKeyID) && tokens[0].objectValue?["name"] == "default")
        #expect(tokens[1] == ["id": addedBody["id"]!, "name": "ci", "created_at": addedBody["created_at"]!, "rotated_at": nil,
                              "expires_at": nil, "token_id": addedBody["id"]!, "updated_at": addedBody["created_at"]!,
                              "ip_allowlist_mode": "disabled", "ip_allowlist": []])
        for secret in [created.restKey, addedBody["token"]?.stringValue ?? "?", "digest"] {
            #expect(!response.text.contains(secret))
        }
    }

    /// A key minted with `expires_in_seconds` works until `expires_at`, then is `401` like an
    /// unknown key; the app's other keys and another app's keys are untouched.
    @Test func anExpiringKeyWorksUntilItExpires() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let response = await app.request(.post, Self.tokensPath(created.app.id), headers: Support.organization,
                                         json: ["name": "short", "expires_in_seconds": 60])
        #expect(response.status == 201)
        let body = try #require(response.json?.objectValue)
        #expect(body.keys == ["id", "name", "token", "created_at", "expires_at", "token_id", "formatted_token"])
        let id = try #require(body["id"]?.stringValue)
        let token = try #require(body["token"]?.stringValue)
        let stored = try #require(try await app.services.database.query("""
            SELECT extract(epoch FROM expires_at - created_at)::float8 AS lifetime,
                   extract(epoch FROM expires_at)::float8 AS expires_at
            FROM api_keys WHERE id = \(id)
            """).first)
        #expect(abs(try stored.decode("lifetime", as: Double.self) - 60) < 0.01)
        #expect(body["expires_at"] == .string(Timestamp.iso8601(try stored.decode("expires_at", as: Double.self))))
        let listed = await app.request(.get, Self.tokensPath(created.app.id), headers: Support.organization)
        let row = listed.json?.objectValue?["tokens"]?.arrayValue?.first { $0.objectValue?["id"] == .string(id) }
        #expect(row?.objectValue?["expires_at"] == body["expires_at"])
        // A REST route of the app opens with it.
        let segments = "/apps/\(created.app.id)/segments"
        #expect(await app.request(.get, segments, headers: .restKey(token)).status == 200)

        // Expired (moved into the past rather than waited for): refused as an unknown key is.
        try await app.services.database.query("""
            UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = \(id)
            """)
        let refused = await app.request(.get, segments, headers: .restKey(token))
        #expect(refused.status == 401)
        #expect(refused.json == ["errors": [.string(Authentication.badRESTKey)]])
        #expect(await app.restKeyStatus(created.app.id, token) == 401)
        #expect(await app.request(.get, segments, headers: .restKey(created.restKey)).status == 200)
        #expect(await app.restKeyStatus(other.app.id, other.restKey) == 200)
    }

    @Test func aKeyLifetimeOutOfRangeOrOfTheWrongTypeIs400() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let path = Self.tokensPath(created.app.id)
        let message: JSONValue = ["errors": ["expires_in_seconds must be an integer from 60 to 7776000"]]
        for lifetime: JSONValue in [59, 0, -60, 7_776_001, 60.5, "3600", true, [60]] {
            let response = await app.request(.post, path, headers: Support.organization,
                                             json: ["name": "bad", "expires_in_seconds": lifetime])
            #expect(response.status == 400, "\(lifetime)")
            #expect(response.json == message, "\(lifetime)")
        }
        // Nothing was stored; the bounds themselves are accepted.
        #expect(await app.request(.get, path, headers: Support.organization).json?.objectValue?["tokens"]?.arrayValue?.count == 1)
        for lifetime: JSONValue in [60, 7_776_000, nil] {
            let response = await app.request(.post, path, headers: Support.organization,
                                             json: ["name": "edge", "expires_in_seconds": lifetime])
            #expect(response.status == 201, "\(lifetime)")
            #expect((response.json?.objectValue?["expires_at"] != nil) == (lifetime != nil))
        }
    }

    @Test func rotationReplacesTheValueAtOnce() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let response = await app.request(.post, "\(Self.tokensPath(created.app.id))/\(created.restKeyID)/rotate",
                                         headers: Support.organization)
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let body = try #require(response.json?.objectValue)
        #expect(body.keys == ["id", "name", "token", "created_at", "token_id", "formatted_token", "rotated_at"])
        #expect(body["id"] == .string(created.restKeyID) && body["name"] == "default")
        #expect(body["rotated_at"]?.stringValue?.hasSuffix("Z") == true)
        let token = try #require(body["token"]?.stringValue)
        #expect(await app.restKeyStatus(created.app.id, created.restKey) == 401)
        #expect(await app.restKeyStatus(created.app.id, token) == 200)
        let listed = await app.request(.get, Self.tokensPath(created.app.id), headers: Support.organization)
        #expect(listed.json?.objectValue?["tokens"]?.arrayValue?.first?.objectValue?["rotated_at"] == body["rotated_at"])
    }

    @Test func deletionStopsTheKeyButNeverTheLastOne() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let path = Self.tokensPath(created.app.id)
        let last = await app.request(.delete, "\(path)/\(created.restKeyID)", headers: Support.organization)
        #expect(last.status == 409)
        #expect(last.json == ["errors": ["an app must keep at least one REST key: create another before deleting this one"]])
        #expect(await app.restKeyStatus(created.app.id, created.restKey) == 200)

        let second = try #require(await app.request(.post, path, headers: Support.organization, json: ["name": "second"]).json?.objectValue)
        let deleted = await app.request(.delete, "\(path)/\(created.restKeyID)", headers: Support.organization)
        #expect(deleted.status == 200)
        #expect(deleted.json == ["success": true])
        #expect(await app.restKeyStatus(created.app.id, created.restKey) == 401)
        #expect(await app.restKeyStatus(created.app.id, second["token"]?.stringValue ?? "") == 200)
        let again = await app.request(.delete, "\(path)/\(created.restKeyID)", headers: Support.organization)
        #expect(again.status == 404)
        #expect(again.json == ["errors": [.string("unknown token '\(created.restKeyID)'")]])
        #expect(await app.request(.get, path, headers: Support.organization).json?.objectValue?["tokens"]?.arrayValue?.count == 1)
    }

    @Test func concurrentDeletesLeaveOneKey() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let path = Self.tokensPath(created.app.id)
        let other = try #require(await app.request(.post, path, headers: Support.organization, json: ["name": "b"]).json?.objectValue?["id"]?.stringValue)
        async let first = app.request(.delete, "\(path)/\(created.restKeyID)", headers: Support.organization)
        async let second = app.request(.delete, "\(path)/\(other)", headers: Support.organization)
        let statuses = await [first.status, second.status].sorted()
        #expect(statuses == [200, 409])
        #expect(await app.request(.get, path, headers: Support.organization).json?.objectValue?["tokens"]?.arrayValue?.count == 1)
    }

    @Test func aTokenOfAnotherAppIs404AndUntouched() async throws {
        let app = try await Support.makeApp()
        let mine = try await app.createApp()
        let theirs = try await app.createApp()
        _ = await app.request(.post, Self.tokensPath(theirs.app.id), headers: Support.organization, json: ["name": "spare"])
        let foreign = "\(Self.tokensPath(mine.app.id))/\(theirs.restKeyID)"
        let message: JSONValue = ["errors": [.string("unknown token '\(theirs.restKeyID)'")]]
        let rotate = await app.request(.post, foreign + "/rotate", headers: Support.organization)
        let delete = await app.request(.delete, foreign, headers: Support.organization)
        for response in [rotate, delete] {
            #expect(response.status == 404)
            #expect(response.json == message)
        }
        #expect(await app.restKeyStatus(theirs.app.id, theirs.restKey) == 200)
        // Each app lists only its own keys.
        let listed = await app.request(.get, Self.tokensPath(mine.app.id), headers: Support.organization)
        #expect(listed.json == ["tokens": [["id": .string(mine.restKeyID), "name": "default",
                                            "created_at": .string(Timestamp.iso8601(mine.app.createdAt)), "rotated_at": nil,
                                            "expires_at": nil, "token_id": .string(mine.restKeyID),
                                            "updated_at": .string(Timestamp.iso8601(mine.app.createdAt)),
                                            "ip_allowlist_mode": "disabled", "ip_allowlist": []]]])
    }

    @Test func tenantKeysAreNotManagedHere() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let tenantKey = KeyMaterial.issue(prefix: "rest")
        try await app.services.database.transaction { connection in
            try connection.query("INSERT INTO tenants (id, app_id, link_code) VALUES ('ten_1', \(created.app.id), 'ABC123')")
            try connection.query("""
                INSERT INTO api_keys (id, app_id, tenant_id, name, digest) VALUES ('key_tenant', \(created.app.id), 'ten_1', 'tenant', \(tenantKey.digest))
                """)
        }
        let path = Self.tokensPath(created.app.id)
        let listed = await app.request(.get, path, headers: Support.organization)
        #expect(listed.json?.objectValue?["tokens"]?.arrayValue?.count == 1)
        #expect(await app.request(.post, "\(path)/key_tenant/rotate", headers: Support.organization).status == 404)
        #expect(await app.request(.delete, "\(path)/key_tenant", headers: Support.organization).status == 404)
        // The tenant key does not count as the app's own: its last key still cannot go.
        #expect(await app.request(.delete, "\(path)/\(created.restKeyID)", headers: Support.organization).status == 409)
        #expect(await app.restKeyStatus(created.app.id, tenantKey.value) == 200)
    }

    @Test func sdkKeyRotation() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let response = await app.request(.post, "/apps/\(created.app.id)/sdk_key/rotate", headers: Support.organization)
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let sdkKey = try #require(response.json?.objectValue?["sdk_key"]?.stringValue)
        #expect(response.json?.objectValue?.keys == ["sdk_key"])
        #expect(sdkKey.hasPrefix("sdk_") && sdkKey != created.sdkKey)
        #expect(await app.sdkKeyStatus(created.app.id, created.sdkKey) == 401)
        #expect(await app.sdkKeyStatus(created.app.id, sdkKey) == 200)
        // The other app and the REST key are untouched.
        #expect(await app.sdkKeyStatus(other.app.id, other.sdkKey) == 200)
        #expect(await app.restKeyStatus(created.app.id, created.restKey) == 200)
        let unknown = await app.request(.post, "/apps/app_nothere/sdk_key/rotate", headers: Support.organization)
        #expect(unknown.status == 404)
        #expect(unknown.json == ["errors": ["unknown app 'app_nothere'"]])
    }

    @Test func unknownAppIs404OnEveryKeyRoute() async throws {
        let app = try await Support.makeApp()
        let path = Self.tokensPath("app_nothere")
        let responses = [
            await app.request(.post, path, headers: Support.organization, json: ["name": "x"]),
            await app.request(.get, path, headers: Support.organization),
            await app.request(.delete, path + "/key_1", headers: Support.organization),
            await app.request(.post, path + "/key_1/rotate", headers: Support.organization),
        ]
        for response in responses {
            #expect(response.status == 404)
            #expect(response.json == ["errors": ["unknown app 'app_nothere'"]])
        }
    }

    /// Every `/apps` route, with a missing, wrong, REST or SDK key instead of the organization key.
    @Test func everyRouteNeedsTheOrganizationKey() async throws {
        let app = try await Support.makeApp()
        let created = try await app.createApp()
        let id = created.app.id
        let tokens = Self.tokensPath(id)
        let routes: [(HTTPMethod, String, JSONValue?)] = [
            (.post, "/apps", ["name": "Intruder"]), (.get, "/apps", nil), (.get, "/apps/\(id)", nil),
            (.put, "/apps/\(id)", ["name": "Intruder"]), (.post, tokens, ["name": "intruder"]), (.get, tokens, nil),
            (.delete, "\(tokens)/\(created.restKeyID)", nil), (.post, "\(tokens)/\(created.restKeyID)/rotate", nil),
            (.post, "/apps/\(id)/sdk_key/rotate", nil), (.patch, "\(tokens)/\(created.restKeyID)", ["name": "intruder"]),
        ]
        // The list above is every route this area registers.
        let ours = app.application.router.routes.filter {
            ["/apps", "/apps/{app_id}"].contains($0.template) || $0.template.hasPrefix("/apps/{app_id}/auth/")
                || $0.template.hasPrefix("/apps/{app_id}/sdk_key/")
        }
        #expect(ours.count == routes.count)
        let credentials: [HTTPHeaders] = [[:], ["Authorization": "Key wrong-organization-key"], .restKey(created.restKey),
                                          .sdkKey(created.sdkKey), ["X-OP-API-Key": created.restKey]]
        for (method, path, body) in routes {
            for headers in credentials {
                let response = if let body {
                    await app.request(method, path, headers: headers, json: body)
                } else {
                    await app.request(method, path, headers: headers)
                }
                #expect(response.status == 401, "\(method) \(path)")
                #expect(response.json == ["errors": [.string(Authentication.badOrganizationKey)]])
            }
        }
        // Nothing changed: one app, its keys as they were.
        #expect(await app.request(.get, "/apps", headers: Support.organization).json?.arrayValue?.count == 1)
        #expect(await app.restKeyStatus(id, created.restKey) == 200)
        #expect(await app.sdkKeyStatus(id, created.sdkKey) == 200)
    }

    @Test func withNoOrganizationKeyConfiguredNobodyGetsIn() async throws {
        let app = try await TestApp.make()
        let response = await app.request(.get, "/apps", headers: ["Authorization": "Key "])
        #expect(response.status == 401)
        #expect(await app.request(.post, "/apps", headers: [:], json: ["name": "X"]).status == 401)
    }
}
