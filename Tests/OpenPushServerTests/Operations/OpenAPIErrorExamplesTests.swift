import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `/docs` shows each error's example body and each operation's key as the document states them,
/// so the document must state them for every operation, and the server must agree: the examples
/// are replayed against a served OpenPush, and every operation is called without credentials.
@Suite struct OpenAPIErrorExamplesTests {
    static let organizationKey = "org_docs_examples_key"

    // MARK: - the document alone

    @Test func everyOperationDeclaresItsSecurityWithSchemesThatExist() throws {
        let document = try OpenAPIDocumentTests.document()
        let schemes = try #require(document["components"]?.objectValue?["securitySchemes"]?.objectValue)
        for name in ["organizationKey", "restKey", "sdkKey", "deviceKey", "metricsToken"] {
            #expect(schemes[name] != nil, "no security scheme '\(name)'")
        }
        for operation in Self.operations(document) {
            guard let security = operation.object["security"]?.arrayValue else {
                Issue.record("\(operation.name) has no security array")
                continue
            }
            for requirement in security {
                let names = requirement.objectValue.map { $0.map(\.key) } ?? []
                #expect(requirement.objectValue != nil, "\(operation.name): a security requirement must be an object")
                for name in names {
                    #expect(schemes[name] != nil, "\(operation.name) names the unknown security scheme '\(name)'")
                }
            }
        }
    }

    @Test func everyErrorResponseHasAnExampleBodyInItsFamilysShape() throws {
        let document = try OpenAPIDocumentTests.document()
        var checked = 0
        for operation in Self.operations(document) {
            for (status, _) in operation.object["responses"]?.objectValue ?? JSONObject()
            where status.hasPrefix("4") || status.hasPrefix("5") {
                let bodies = try Self.exampleBodies(document, operation.name, status)
                #expect(!bodies.isEmpty, "\(operation.name) \(status) has no example body")
                for (name, body) in bodies {
                    #expect(Self.hasFamilyShape(body, path: operation.path),
                            "\(operation.name) \(status) example '\(name)' is not in its family's shape: \(body)")
                }
                checked += 1
            }
        }
        #expect(checked > 250)
    }

    // MARK: - the document against the server

    /// One documented example and the request that makes the server answer it.
    struct Probe: Sendable, CustomStringConvertible {
        var operation: String
        var status: String
        var example: String?
        var method: HTTPMethod
        var path: String
        var query: [String: String] = [:]
        var headers: HTTPHeaders = [:]
        var body: Body = .none

        enum Body: Sendable {
            case none
            case json(JSONValue)
            case raw(String)
        }

        var description: String { "\(operation) \(status) \(example ?? "example")" }
    }

    /// The apps, keys and devices the probes address.
    struct Fixture: Sendable {
        var app: String
        var restKey: String
        var sdkKey: String
        var sharedApp: String
        var sharedSDKKey: String
        var tenantKey: String
        var linkedToken: String
        var unlinkedToken: String
        var onlyKeyID: String
        var builtInSegmentID: String

        var org: HTTPHeaders { ["Authorization": "Key \(OpenAPIErrorExamplesTests.organizationKey)"] }
        var rest: HTTPHeaders { .restKey(restKey) }
        var sdk: HTTPHeaders { .sdkKey(sdkKey) }
        var tenant: HTTPHeaders { .restKey(tenantKey) }
        var sharedSDK: HTTPHeaders { .sdkKey(sharedSDKKey) }
    }

    static let deviceToken = String(repeating: "c0ffee00", count: 8)
    /// RFC 8291 Appendix A's receiver key: a point on P-256.
    static let webP256 = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"

    @Test func documentedExamplesAreWhatTheServerAnswers() async throws {
        let document = try OpenAPIDocumentTests.document()
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = Self.organizationKey })
        let fixture = try await Self.fixture(app)
        let probes = Self.probes(fixture)
        var families = Set<String>()
        for probe in probes {
            let response = await Self.send(probe, to: app)
            let documented = try Self.exampleBodies(document, probe.operation, probe.status)
            let expected = try #require(probe.example.map { name in documented.first { $0.name == name }?.body } ?? documented.first?.body,
                                        "\(probe): no such example in the document")
            #expect(String(response.status) == probe.status, "\(probe): status \(response.status), body \(response.text)")
            #expect(response.json == expected, "\(probe): the server answered \(response.text)")
            families.insert(Self.family(probe.path))
        }
        #expect(families == ["native", "send", "rest", "organization", "web"])
    }

    /// The shared responses of `components.responses` that take a special setup: a body over the
    /// limit (a real socket), a database that is not there, the send routes' rate limit.
    @Test func sharedErrorResponsesAreWhatTheServerAnswers() async throws {
        let document = try OpenAPIDocumentTests.document()
        // The clock stands still, so the sixty sends below fall in one rate-limit window however
        // long a loaded machine takes over them (CI once took more than a minute).
        let frozen = WallClock.now()
        let app = try await TestApp.make(configure: {
            $0.organizationAPIKey = Self.organizationKey
            $0.metricsToken = "metrics-secret"
        }, now: { frozen })
        let created = try await app.createApp()

        let metrics = await app.request(.get, "/metrics", headers: ["Authorization": "Bearer wrong"])
        #expect(metrics.status == 401)
        #expect(metrics.headers["WWW-Authenticate"] == "Bearer")
        #expect(metrics.json == (try Self.exampleBodies(document, "GET /metrics", "401").first?.body))

        // Readiness with a migration this binary knows and the database lacks.
        var services = app.services
        services.migrations.append(Migration(version: 999_999, name: "not_yet", sql: "SELECT 1"))
        let pending = TestResponse(await OpenPushApplication(services: services, logger: .discarding())
            .respond(to: HTTPRequest(method: .get, path: "/ready")))
        #expect(pending.status == 503)
        #expect(pending.json == (try Self.exampleBodies(document, "GET /ready", "503").first { $0.name == "migrationsPending" }?.body))

        let server = try app.startHTTP()
        defer { Task { await server.shutdown() } }
        let file = try TemporaryDirectory.make(prefix: "openapi-413") + "/big.json"
        try Data(("{\"pad\": \"" + String(repeating: "x", count: 1 << 20) + "\"}").utf8).write(to: URL(fileURLWithPath: file))
        for (operation, path) in [("POST /apps/{app_id}/segments", "/apps/\(created.app.id)/segments"),
                                  ("POST /v1/apps/{app_id}/subscriptions", "/v1/apps/\(created.app.id)/subscriptions")] {
            let response = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@\(file)",
                                               "http://127.0.0.1:\(server.port)\(path)"])
            #expect(response.status == 413)
            #expect(try JSONValue.parse(response.body) == (try Self.exampleBodies(document, operation, "413").first?.body))
        }

        // Sixty sends a minute per app, whatever they come to; the sixty-first is refused.
        let route = "/apps/\(created.app.id)/live_activities/a1/notifications"
        for _ in 0..<60 {
            _ = await app.request(.post, route, headers: .restKey(created.restKey), json: [:])
        }
        let limited = await app.request(.post, route, headers: .restKey(created.restKey), json: [:])
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "60")
        let documented = try Self.exampleBodies(document, "POST /apps/{app_id}/live_activities/{activity_id}/notifications", "429")
        #expect(limited.json == documented.first?.body)

        // Nothing listens on port 1: every database call fails at once.
        let offline = try TestApp.make(conninfo: "host=127.0.0.1 port=1 dbname=openpush connect_timeout=2")
        for (method, operation, path) in [(HTTPMethod.get, "GET /apps/{app_id}/segments", "/apps/app_unknown/segments"),
                                          (.post, "POST /v1/apps/{app_id}/subscriptions", "/v1/apps/app_unknown/subscriptions")] {
            let response = await offline.request(method, path, headers: ["Authorization": "Key x", "X-OP-SDK-Key": "x"],
                                                 body: Array("{}".utf8))
            #expect(response.status == 503, "\(operation): \(response.text)")
            #expect(response.headers["Retry-After"] == "1")
            #expect(response.json == (try Self.exampleBodies(document, operation, "503").first?.body), "\(operation)")
        }
        let ready = await offline.request(.get, "/ready")
        #expect(ready.status == 503)
        #expect(ready.json == (try Self.exampleBodies(document, "GET /ready", "503").first { $0.name == "databaseUnavailable" }?.body))
    }

    /// Without credentials, an operation whose `security` asks for a key answers its documented
    /// `401`; one whose `security` is `[]` (or allows `{}`) answers anything but `401`.
    @Test func everyOperationsDeclaredSecurityHoldsWithoutCredentials() async throws {
        let document = try OpenAPIDocumentTests.document()
        let app = try await TestApp.make(configure: { $0.organizationAPIKey = Self.organizationKey })
        let created = try await app.createApp()
        var protected = 0
        var open = 0
        for operation in Self.operations(document) {
            let security = operation.object["security"]?.arrayValue ?? []
            let anonymous = security.isEmpty || security.contains { $0.objectValue?.isEmpty == true }
            var path = operation.path.replacingOccurrences(of: "{app_id}", with: created.app.id)
            while let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") {
                path.replaceSubrange(open...close, with: "x")
            }
            // Routes that take `app_id` from the query or the body read it before the key.
            let takesQueryAppID = operation.path.hasPrefix("/notifications") || operation.path.hasPrefix("/templates")
            let hasBody = operation.object["requestBody"] != nil
            let request = HTTPRequest(method: HTTPMethod(rawValue: operation.method.uppercased()), path: path,
                                      query: takesQueryAppID ? ["app_id": created.app.id] : [:],
                                      headers: hasBody ? ["Content-Type": "application/json"] : [:],
                                      body: hasBody ? JSONValue.object(["app_id": .string(created.app.id)]).serializedBytes : [])
            let response = TestResponse(await app.application.respond(to: request))
            if anonymous {
                open += 1
                #expect(response.status != 401, "\(operation.name) is documented as open but answered 401 \(response.text)")
            } else {
                protected += 1
                #expect(response.status == 401, "\(operation.name) needs a key but answered \(response.status) \(response.text)")
                let documented = try Self.exampleBodies(document, operation.name, "401").map(\.body)
                #expect(documented.contains { $0 == response.json }, "\(operation.name): 401 body \(response.text) is not documented")
            }
        }
        // /health, /ready, /metrics (no token configured), /openapi.json, the two pages' pairs and
        // the browser SDK's two files.
        #expect(open == 10)
        #expect(protected + open == Self.operations(document).count)
        #expect(protected >= 60)
    }

    // MARK: - fixtures and probes

    static func fixture(_ app: TestApp) async throws -> Fixture {
        let org: HTTPHeaders = ["Authorization": "Key \(organizationKey)"]
        let plain = try #require(await app.request(.post, "/apps", headers: org, json: ["name": "Docs"]).json?.objectValue)
        let appID = try #require(plain["id"]?.stringValue)
        let restKey = try #require(plain["basic_auth_key"]?.stringValue)
        let sdkKey = try #require(plain["sdk_key"]?.stringValue)
        let shared = try #require(await app.request(.post, "/apps", headers: org,
                                                    json: ["name": "Shared", "shared_demo": true]).json?.objectValue)
        let sharedApp = try #require(shared["id"]?.stringValue)
        let sharedSDKKey = try #require(shared["sdk_key"]?.stringValue)
        let tenant = try #require(await app.request(.post, "/apps/\(sharedApp)/tenants", headers: org,
                                                    json: ["name": "Acme"]).json?.objectValue)
        let tenantKey = try #require(tenant["rest_api_key"]?.stringValue)
        let linkCode = try #require(tenant["link_code"]?.stringValue)

        let registered = await app.request(.post, "/v1/apps/\(appID)/subscriptions", headers: .sdkKey(sdkKey),
                                           json: ["token": .string(deviceToken), "external_id": "u1"])
        #expect(registered.status == 201, "\(registered.text)")
        let user = await app.request(.post, "/apps/\(appID)/users", headers: .restKey(restKey),
                                     json: ["identity": ["external_id": "u2", "custom": "c1"]])
        #expect(user.status == 201, "\(user.text)")

        let linkedToken = String(repeating: "ab", count: 32)
        let unlinkedToken = String(repeating: "cd", count: 32)
        for token in [linkedToken, unlinkedToken] {
            let response = await app.request(.post, "/v1/apps/\(sharedApp)/subscriptions", headers: .sdkKey(sharedSDKKey),
                                             json: ["token": .string(token)])
            #expect(response.status == 201, "\(response.text)")
        }
        let linked = await app.request(.post, "/v1/apps/\(sharedApp)/devices/link", headers: .sdkKey(sharedSDKKey),
                                       json: ["token": .string(linkedToken), "code": .string(linkCode)])
        #expect(linked.status == 200, "\(linked.text)")

        let tokens = await app.request(.get, "/apps/\(appID)/auth/tokens", headers: org)
        let onlyKeyID = try #require(tokens.json?.objectValue?["tokens"]?.arrayValue?.first?.objectValue?["id"]?.stringValue)
        let segments = await app.request(.get, "/apps/\(appID)/segments", headers: .restKey(restKey))
        let inactive = segments.json?.objectValue?["segments"]?.arrayValue?
            .first { $0.objectValue?["name"] == "Inactive Users" }?.objectValue?["id"]?.stringValue
        return Fixture(app: appID, restKey: restKey, sdkKey: sdkKey, sharedApp: sharedApp, sharedSDKKey: sharedSDKKey,
                       tenantKey: tenantKey, linkedToken: linkedToken, unlinkedToken: unlinkedToken, onlyKeyID: onlyKeyID,
                       builtInSegmentID: try #require(inactive))
    }

    static func probes(_ f: Fixture) -> [Probe] {
        let a = f.app
        let token = JSONValue.string(deviceToken)
        let unknownToken = JSONValue.string(String(repeating: "abcd", count: 16))
        return [
            // The organization's routes.
            Probe(operation: "POST /apps", status: "400", example: "malformedBody", method: .post, path: "/apps",
                  headers: f.org, body: .raw("{nope")),
            Probe(operation: "POST /apps", status: "400", example: "missingName", method: .post, path: "/apps",
                  headers: f.org, body: .json([:])),
            Probe(operation: "POST /apps", status: "400", example: "unknownField", method: .post, path: "/apps",
                  headers: f.org, body: .json(["name": "x", "colour": 1])),
            Probe(operation: "POST /apps", status: "400", example: "p12NotBase64", method: .post, path: "/apps",
                  headers: f.org, body: .json(["name": "x", "apns_p12": "%%%"])),
            Probe(operation: "POST /apps", status: "400", example: "p12NotPKCS12", method: .post, path: "/apps",
                  headers: f.org, body: .json(["name": "x", "apns_p12": "aGVsbG8="])),
            Probe(operation: "POST /apps", status: "401", method: .post, path: "/apps", headers: f.rest, body: .json([:])),
            Probe(operation: "GET /apps", status: "400", example: "badPage", method: .get, path: "/apps",
                  query: ["limit": "x", "offset": "-1"], headers: f.org),
            Probe(operation: "GET /apps/{app_id}", status: "400", example: "nulCharacter", method: .get, path: "/apps/app\u{0}x",
                  headers: f.org),
            Probe(operation: "GET /apps/{app_id}", status: "404", method: .get, path: "/apps/app_unknown", headers: f.org),
            Probe(operation: "PUT /apps/{app_id}", status: "400", example: "nullName", method: .put, path: "/apps/\(a)",
                  headers: f.org, body: .json(["name": nil])),
            Probe(operation: "PUT /apps/{app_id}", status: "400", example: "badVAPIDKey", method: .put, path: "/apps/\(a)",
                  headers: f.org, body: .json(["web_push_vapid_private_key": "not a key"])),
            Probe(operation: "POST /apps", status: "400", example: "badWebPushSubject", method: .post, path: "/apps",
                  headers: f.org, body: .json(["name": "x", "web_push_subject": "ops@example.com"])),
            Probe(operation: "GET /v1/apps/{app_id}/web-push", status: "401", method: .get, path: "/v1/apps/\(a)/web-push",
                  headers: f.sharedSDK),
            Probe(operation: "GET /v1/apps/{app_id}/web-push", status: "404", method: .get, path: "/v1/apps/app_unknown/web-push",
                  headers: f.sdk),
            Probe(operation: "POST /apps/{app_id}/auth/tokens", status: "400", example: "badLifetime",
                  method: .post, path: "/apps/\(a)/auth/tokens", headers: f.org,
                  body: .json(["name": "short", "expires_in_seconds": 30])),
            Probe(operation: "DELETE /apps/{app_id}/auth/tokens/{token_id}", status: "404", example: "unknownToken",
                  method: .delete, path: "/apps/\(a)/auth/tokens/key_unknown", headers: f.org),
            Probe(operation: "DELETE /apps/{app_id}/auth/tokens/{token_id}", status: "409",
                  method: .delete, path: "/apps/\(a)/auth/tokens/\(f.onlyKeyID)", headers: f.org),
            Probe(operation: "DELETE /apps/{app_id}/tenants/{tenant_id}", status: "404", example: "unknownTenant",
                  method: .delete, path: "/apps/\(f.sharedApp)/tenants/ten_unknown", headers: f.org),
            Probe(operation: "POST /apps/{app_id}/tenants", status: "400", example: "badName", method: .post,
                  path: "/apps/\(a)/tenants", headers: f.org, body: .json(["name": 5])),
            Probe(operation: "GET /apps/{app_id}/stats", status: "400", example: "window", method: .get, path: "/apps/\(a)/stats",
                  query: ["window": "99d"], headers: f.org),
            Probe(operation: "GET /apps/{app_id}/stats", status: "404", method: .get, path: "/apps/app_unknown/stats", headers: f.org),
            Probe(operation: "GET /stats/throughput", status: "401", method: .get, path: "/stats/throughput", headers: f.rest),

            // Devices, on the native routes.
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "400", example: "malformedBody", method: .post,
                  path: "/v1/apps/\(a)/subscriptions", headers: f.sdk, body: .raw("[]")),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "400", example: "badToken", method: .post,
                  path: "/v1/apps/\(a)/subscriptions", headers: f.sdk, body: .json(["token": "xyz"])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "400", example: "webEndpointHost", method: .post,
                  path: "/v1/apps/\(a)/subscriptions", headers: f.sdk, body: .json([
                      "platform": "web", "token": "https://push.example.com/x", "web_p256": .string(Self.webP256),
                      "web_auth": "BTBZMqHH6r4Tts7J_aSIgg",
                  ])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "400", example: "webKeyOffCurve", method: .post,
                  path: "/v1/apps/\(a)/subscriptions", headers: f.sdk, body: .json([
                      "platform": "web", "token": "https://fcm.googleapis.com/fcm/send/x",
                      "web_p256": .string("BA" + String(repeating: "E", count: 85)), "web_auth": "BTBZMqHH6r4Tts7J_aSIgg",
                  ])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "400", example: "nulCharacter", method: .post,
                  path: "/v1/apps/app\u{0}x/subscriptions", headers: f.sdk, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "401", example: "wrongSDKKey", method: .post,
                  path: "/v1/apps/\(a)/subscriptions", headers: f.rest, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions", status: "404", method: .post,
                  path: "/v1/apps/app_unknown/subscriptions", headers: f.sdk, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/retire", status: "404", example: "unknownToken", method: .post,
                  path: "/v1/apps/\(a)/subscriptions/retire", headers: f.sdk, body: .json(["token": unknownToken])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens", status: "400", example: "missingFields", method: .post,
                  path: "/v1/apps/\(a)/subscriptions/tokens", headers: f.sdk, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens", status: "400", example: "badKind", method: .post,
                  path: "/v1/apps/\(a)/subscriptions/tokens", headers: f.sdk,
                  body: .json(["token": token, "kind": "mdm", "push_token": .string(String(repeating: "ab", count: 32))])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens", status: "400", example: "badPushToken", method: .post,
                  path: "/v1/apps/\(a)/subscriptions/tokens", headers: f.sdk,
                  body: .json(["token": token, "kind": "voip", "push_token": "abcdabcd"])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens", status: "400", example: "notHex", method: .post,
                  path: "/v1/apps/\(a)/subscriptions/tokens", headers: f.sdk,
                  body: .json(["token": token, "kind": "voip", "push_token": .string(String(repeating: "zz", count: 32))])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens", status: "404", example: "unknownToken", method: .post,
                  path: "/v1/apps/\(a)/subscriptions/tokens", headers: f.sdk,
                  body: .json(["token": unknownToken, "kind": "voip", "push_token": .string(String(repeating: "ab", count: 32))])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens/remove", status: "400", example: "missingFields",
                  method: .post, path: "/v1/apps/\(a)/subscriptions/tokens/remove", headers: f.sdk, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/subscriptions/tokens/remove", status: "404", example: "noToken",
                  method: .post, path: "/v1/apps/\(a)/subscriptions/tokens/remove", headers: f.sdk,
                  body: .json(["token": token, "kind": "voip"])),
            Probe(operation: "POST /v1/apps/{app_id}/live-activities", status: "400", example: "missingFields", method: .post,
                  path: "/v1/apps/\(a)/live-activities", headers: f.sdk, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/live-activities", status: "404", example: "unknownToken", method: .post,
                  path: "/v1/apps/\(a)/live-activities", headers: f.sdk,
                  body: .json(["token": unknownToken, "activity_id": "a1", "update_token": .string(String(repeating: "ab", count: 32))])),
            Probe(operation: "POST /v1/apps/{app_id}/live-activities/{activity_id}/end", status: "404", example: "unknownActivity",
                  method: .post, path: "/v1/apps/\(a)/live-activities/a1/end", headers: f.sdk, body: .json(["token": token])),
            Probe(operation: "POST /v1/apps/{app_id}/live-activities/{activity_id}/end", status: "401", example: "missingDeviceKey",
                  method: .post, path: "/v1/apps/\(f.sharedApp)/live-activities/a1/end", headers: f.sharedSDK,
                  body: .json(["token": .string(f.linkedToken)])),
            Probe(operation: "POST /v1/apps/{app_id}/live-activities/push-to-start/remove", status: "404",
                  example: "noPushToStartToken", method: .post, path: "/v1/apps/\(a)/live-activities/push-to-start/remove",
                  headers: f.sdk, body: .json(["token": token, "activity_type": "T"])),
            Probe(operation: "POST /v1/apps/{app_id}/live-activities/{activity_id}/click", status: "404",
                  example: "nothingToAttribute", method: .post, path: "/v1/apps/\(a)/live-activities/a1/click", headers: f.sdk,
                  body: .json(["token": token])),
            Probe(operation: "POST /v1/apps/{app_id}/notifications/{notification_id}/opened", status: "404",
                  example: "unknownNotification", method: .post, path: "/v1/apps/\(a)/notifications/msg_unknown/opened",
                  headers: f.sdk, body: .json(["token": token])),
            Probe(operation: "GET /v1/apps/{app_id}/live-activities/channels", status: "400", method: .get,
                  path: "/v1/apps/\(a)/live-activities/channels", headers: f.sdk),
            Probe(operation: "GET /v1/apps/{app_id}/live-activities/channels", status: "404", example: "unknownChannel",
                  method: .get, path: "/v1/apps/\(a)/live-activities/channels", query: ["name": "final"], headers: f.sdk),
            Probe(operation: "POST /v1/apps/{app_id}/devices/link", status: "400", example: "notSharedDemo", method: .post,
                  path: "/v1/apps/\(a)/devices/link", headers: f.sdk, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/devices/link", status: "400", example: "missingFields", method: .post,
                  path: "/v1/apps/\(f.sharedApp)/devices/link", headers: f.sharedSDK, body: .json([:])),
            Probe(operation: "POST /v1/apps/{app_id}/devices/link", status: "404", example: "unknownLinkCode", method: .post,
                  path: "/v1/apps/\(f.sharedApp)/devices/link", headers: f.sharedSDK,
                  body: .json(["token": .string(f.unlinkedToken), "code": "WRONG-CODE"])),
            Probe(operation: "POST /v1/apps/{app_id}/devices/link", status: "404", example: "unknownToken", method: .post,
                  path: "/v1/apps/\(f.sharedApp)/devices/link", headers: f.sharedSDK,
                  body: .json(["token": unknownToken, "code": "WRONG-CODE"])),

            // The send routes.
            Probe(operation: "POST /apps/{app_id}/activities/activity/{activity_type}", status: "400", example: "emptyBody",
                  method: .post, path: "/apps/\(a)/activities/activity/T", headers: f.rest, body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/activities/activity/{activity_type}", status: "400", example: "nobodyStartable",
                  method: .post, path: "/apps/\(a)/activities/activity/T", headers: f.rest,
                  body: .json(["event": "start", "activity_id": "a1", "event_attributes": ["a": 1], "event_updates": ["a": 1],
                               "name": "n", "contents": ["en": "x"], "headings": ["en": "y"], "included_segments": ["All"]])),
            Probe(operation: "POST /apps/{app_id}/activities/activity/{activity_type}", status: "401", method: .post,
                  path: "/apps/\(a)/activities/activity/T", body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/live_activities/{activity_id}/notifications", status: "400", example: "badPriority",
                  method: .post, path: "/apps/\(a)/live_activities/a1/notifications", headers: f.rest,
                  body: .json(["event": "update", "event_updates": ["a": 1], "name": "n", "priority": 7])),
            Probe(operation: "POST /apps/{app_id}/live_activities/{activity_id}/notifications", status: "404", example: "nothingOpen",
                  method: .post, path: "/apps/\(a)/live_activities/a1/notifications", headers: f.rest,
                  body: .json(["event": "update", "event_updates": ["a": 1], "name": "n"])),
            Probe(operation: "POST /apps/{app_id}/live_activities/{activity_id}/notifications", status: "404", example: "unknownApp",
                  method: .post, path: "/apps/app_unknown/live_activities/a1/notifications", headers: f.rest, body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/live_activities/channels/{channel_id}/notifications", status: "404",
                  example: "unknownChannel", method: .post, path: "/apps/\(a)/live_activities/channels/chn_unknown/notifications",
                  headers: f.rest, body: .json([:])),

            // The REST API.
            Probe(operation: "GET /apps/{app_id}/subscriptions/{subscription_id}", status: "404", example: "unknownSubscription",
                  method: .get, path: "/apps/\(a)/subscriptions/sub_unknown", headers: f.rest),
            Probe(operation: "PATCH /apps/{app_id}/subscriptions/{subscription_id}", status: "400", example: "nothingToChange",
                  method: .patch, path: "/apps/\(a)/subscriptions/sub_unknown", headers: f.rest, body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/users", status: "409", example: "differentUsers", method: .post,
                  path: "/apps/\(a)/users", headers: f.rest, body: .json(["identity": ["external_id": "u1", "custom": "c1"]])),
            Probe(operation: "POST /apps/{app_id}/users", status: "400", example: "badAlias", method: .post,
                  path: "/apps/\(a)/users", headers: f.rest, body: .json(["identity": ["external_id": 5]])),
            Probe(operation: "GET /apps/{app_id}/users/by/{alias_label}/{alias_id}", status: "404", example: "userNotFound",
                  method: .get, path: "/apps/\(a)/users/by/external_id/nobody", headers: f.rest),
            Probe(operation: "PATCH /apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", status: "409",
                  example: "externalIDChange", method: .patch, path: "/apps/\(a)/users/by/external_id/u1/identity", headers: f.rest,
                  body: .json(["identity": ["external_id": "other"]])),
            Probe(operation: "PATCH /apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", status: "409",
                  example: "aliasTaken", method: .patch, path: "/apps/\(a)/users/by/external_id/u1/identity", headers: f.rest,
                  body: .json(["identity": ["custom": "c1"]])),
            Probe(operation: "DELETE /apps/{app_id}/users/by/{alias_label}/{alias_id}/identity/{label_to_delete}", status: "400",
                  example: "protectedAlias", method: .delete, path: "/apps/\(a)/users/by/external_id/u1/identity/external_id",
                  headers: f.rest),
            Probe(operation: "DELETE /apps/{app_id}/users/by/{alias_label}/{alias_id}/identity/{label_to_delete}", status: "404",
                  example: "noSuchAlias", method: .delete, path: "/apps/\(a)/users/by/external_id/u1/identity/nolabel",
                  headers: f.rest),
            Probe(operation: "PATCH /apps/{app_id}/users/by/{alias_label}/{alias_id}", status: "400", example: "nothingToUpdate",
                  method: .patch, path: "/apps/\(a)/users/by/external_id/u1", headers: f.rest, body: .json([:])),
            Probe(operation: "PATCH /apps/{app_id}/users/by/{alias_label}/{alias_id}", status: "400", example: "badLatitude",
                  method: .patch, path: "/apps/\(a)/users/by/external_id/u1", headers: f.rest,
                  body: .json(["properties": ["lat": 91]])),
            Probe(operation: "GET /apps/{app_id}/users/by/{alias_label}/{alias_id}/identity", status: "404", example: "userNotFound",
                  method: .get, path: "/apps/\(a)/users/by/external_id/nobody/identity", headers: f.rest),
            Probe(operation: "GET /apps/{app_id}/subscriptions/{subscription_id}/user/identity", status: "404",
                  example: "subscriptionNotFound", method: .get, path: "/apps/\(a)/subscriptions/sub_x/user/identity", headers: f.rest),
            Probe(operation: "PATCH /apps/{app_id}/subscriptions/{subscription_id}/user/identity", status: "404",
                  example: "subscriptionNotFound", method: .patch, path: "/apps/\(a)/subscriptions/sub_x/user/identity",
                  headers: f.rest, body: .json(["identity": ["crm": "1"]])),
            Probe(operation: "POST /apps/{app_id}/segments", status: "400", example: "malformedBody", method: .post,
                  path: "/apps/\(a)/segments", headers: f.rest, body: .raw("x")),
            Probe(operation: "POST /apps/{app_id}/segments", status: "400", example: "missingFields", method: .post,
                  path: "/apps/\(a)/segments", headers: f.rest, body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/segments", status: "400", example: "badFilter", method: .post,
                  path: "/apps/\(a)/segments", headers: f.rest,
                  body: .json(["name": "s", "filters": [["field": "colour", "relation": "=", "value": "x"]]])),
            Probe(operation: "POST /apps/{app_id}/segments", status: "403", method: .post, path: "/apps/\(f.sharedApp)/segments",
                  headers: f.tenant, body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/segments", status: "409", method: .post, path: "/apps/\(a)/segments",
                  headers: f.rest,
                  body: .json(["name": "Active Users", "filters": [["field": "tag", "key": "a", "relation": "=", "value": "x"]]])),
            Probe(operation: "GET /apps/{app_id}/segments", status: "400", example: "badPage", method: .get,
                  path: "/apps/\(a)/segments", query: ["limit": "0", "offset": "-1"], headers: f.rest),
            Probe(operation: "GET /apps/{app_id}/segments", status: "401", method: .get, path: "/apps/\(a)/segments", headers: f.org),
            Probe(operation: "GET /apps/{app_id}/segments", status: "404", method: .get, path: "/apps/app_unknown/segments",
                  headers: f.rest),
            Probe(operation: "DELETE /apps/{app_id}/segments/{segment_id}", status: "400", example: "builtIn", method: .delete,
                  path: "/apps/\(a)/segments/\(f.builtInSegmentID)", headers: f.rest),
            Probe(operation: "DELETE /apps/{app_id}/segments/{segment_id}", status: "404", example: "unknownSegment",
                  method: .delete, path: "/apps/\(a)/segments/seg_unknown", headers: f.rest),
            Probe(operation: "POST /notifications", status: "400", example: "missingAppID", method: .post, path: "/notifications",
                  headers: f.rest, body: .json([:])),
            Probe(operation: "POST /notifications", status: "400", example: "noTargetingNoContents", method: .post,
                  path: "/notifications", headers: f.rest, body: .json(["app_id": .string(a)])),
            Probe(operation: "POST /notifications", status: "400", example: "pushTypeRefusesField", method: .post,
                  path: "/notifications", headers: f.rest,
                  body: .json(["app_id": .string(a), "included_segments": ["All"], "apns_push_type_override": "location",
                               "headings": ["en": "h"]])),
            Probe(operation: "POST /notifications", status: "400", example: "voipPayloadTooLarge", method: .post,
                  path: "/notifications", headers: f.rest,
                  body: .json(["app_id": .string(a), "included_segments": ["All"], "apns_push_type_override": "voip",
                               "data": ["k": .string(String(repeating: "x", count: 5113))]])),
            Probe(operation: "POST /notifications", status: "400", example: "badIdempotencyKey", method: .post,
                  path: "/notifications", headers: ["Authorization": "Key \(f.restKey)", "Idempotency-Key": ""],
                  body: .json(["app_id": .string(a), "contents": ["en": "hi"], "included_segments": ["All"]])),
            Probe(operation: "POST /notifications", status: "404", method: .post, path: "/notifications", headers: f.rest,
                  body: .json(["app_id": "app_unknown"])),
            Probe(operation: "GET /notifications", status: "400", example: "badPage", method: .get, path: "/notifications",
                  query: ["app_id": a, "limit": "0", "offset": "-1"], headers: f.rest),
            Probe(operation: "GET /notifications/{notification_id}", status: "400", example: "missingAppID", method: .get,
                  path: "/notifications/msg_unknown", headers: f.rest),
            Probe(operation: "DELETE /notifications/{notification_id}", status: "404", example: "unknownNotification",
                  method: .delete, path: "/notifications/msg_unknown", query: ["app_id": a], headers: f.rest),
            Probe(operation: "GET /notifications/{notification_id}/deliveries", status: "404", example: "message", method: .get,
                  path: "/notifications/msg_unknown/deliveries", query: ["app_id": a], headers: f.rest),
            Probe(operation: "POST /templates", status: "400", example: "missingFields", method: .post, path: "/templates",
                  headers: f.rest, body: .json(["app_id": .string(a)])),
            Probe(operation: "POST /templates", status: "403", method: .post, path: "/templates", headers: f.tenant,
                  body: .json(["app_id": .string(f.sharedApp), "name": "t", "contents": ["en": "x"]])),
            Probe(operation: "GET /templates", status: "400", example: "badChannel", method: .get, path: "/templates",
                  query: ["app_id": a, "channel": "fax"], headers: f.rest),
            Probe(operation: "PATCH /templates/{template_id}", status: "400", example: "otherAppID", method: .patch,
                  path: "/templates/tpl_unknown", query: ["app_id": a], headers: f.rest, body: .json(["app_id": "other"])),
            Probe(operation: "GET /templates/{template_id}", status: "404", example: "unknownTemplate", method: .get,
                  path: "/templates/tpl_unknown", query: ["app_id": a], headers: f.rest),
            Probe(operation: "POST /apps/{app_id}/webhooks", status: "400", example: "missingFields", method: .post,
                  path: "/apps/\(a)/webhooks", headers: f.rest, body: .json([:])),
            Probe(operation: "POST /apps/{app_id}/webhooks", status: "400", example: "badEventType", method: .post,
                  path: "/apps/\(a)/webhooks", headers: f.rest, body: .json(["url": "https://example.com/h", "events": ["nope"]])),
            Probe(operation: "PATCH /apps/{app_id}/webhooks/{webhook_id}", status: "400", example: "badURL", method: .patch,
                  path: "/apps/\(a)/webhooks/whk_unknown", headers: f.rest, body: .json(["url": "ftp://x"])),
            Probe(operation: "GET /apps/{app_id}/webhooks/{webhook_id}", status: "404", example: "unknownWebhook", method: .get,
                  path: "/apps/\(a)/webhooks/whk_unknown", headers: f.rest),
            Probe(operation: "GET /apps/{app_id}/webhooks", status: "403", method: .get, path: "/apps/\(f.sharedApp)/webhooks",
                  headers: f.tenant),
            Probe(operation: "GET /apps/{app_id}/events", status: "400", example: "badParameters", method: .get,
                  path: "/apps/\(a)/events", query: ["after": "zz", "types": "x", "limit": "0"], headers: f.rest),
            Probe(operation: "GET /apps/{app_id}/events", status: "403", method: .get, path: "/apps/\(f.sharedApp)/events",
                  headers: f.tenant),
            Probe(operation: "GET /apps/{app_id}/live_activities/channels/{channel_id}", status: "404", example: "unknownChannel",
                  method: .get, path: "/apps/\(a)/live_activities/channels/chn_unknown", headers: f.rest),
            Probe(operation: "POST /apps/{app_id}/live_activities/channels", status: "400", example: "noCredentials", method: .post,
                  path: "/apps/\(a)/live_activities/channels", headers: f.rest, body: .json(["name": "x"])),

            // The pages.
            Probe(operation: "GET /docs/{asset}", status: "404", method: .get, path: "/docs/nothing.js"),
            Probe(operation: "GET /console/{asset}", status: "404", method: .get, path: "/console/nothing.js"),
        ]
    }

    static func send(_ probe: Probe, to app: TestApp) async -> TestResponse {
        var headers = probe.headers
        var body: [UInt8] = []
        switch probe.body {
        case .none:
            break
        case .json(let value):
            headers.add(name: "Content-Type", value: "application/json")
            body = value.serializedBytes
        case .raw(let text):
            headers.add(name: "Content-Type", value: "application/json")
            body = Array(text.utf8)
        }
        return await app.request(probe.method, probe.path, headers: headers, body: body, query: probe.query)
    }

    /// Which of the route families (and which key) a probe's path belongs to.
    static func family(_ path: String) -> String {
        if path.hasPrefix("/v1/") { return "native" }
        if path.hasPrefix("/docs") || path.hasPrefix("/console") { return "web" }
        if path.contains("/activities/activity/") || path.contains("/notifications") && path.hasPrefix("/apps/") { return "send" }
        if path == "/apps" || path.hasPrefix("/stats") || path.hasSuffix("/stats") || path.contains("/auth/tokens")
            || path.contains("/tenants") || path.split(separator: "/").count == 2 { return "organization" }
        return "rest"
    }

    // MARK: - reading the document

    struct Operation {
        var method: String
        var path: String
        var object: JSONObject
        var name: String { "\(method.uppercased()) \(path)" }
    }

    static func operations(_ document: JSONObject) -> [Operation] {
        var result: [Operation] = []
        for (path, item) in document["paths"]?.objectValue ?? JSONObject() {
            for (method, operation) in item.objectValue ?? JSONObject() {
                guard ["get", "post", "put", "patch", "delete"].contains(method), let object = operation.objectValue else { continue }
                result.append(Operation(method: method, path: path, object: object))
            }
        }
        return result.sorted { $0.name < $1.name }
    }

    struct Unresolvable: Error, CustomStringConvertible {
        var description: String
    }

    /// Follows `$ref` (local ones, as the document uses) until a value that is not a reference.
    static func resolve(_ value: JSONValue, in document: JSONObject) throws -> JSONValue {
        var current = value
        var hops = 0
        while let reference = current.objectValue?["$ref"]?.stringValue {
            guard reference.hasPrefix("#/"), hops < 10 else { throw Unresolvable(description: reference) }
            var target: JSONValue? = .object(document)
            for part in reference.dropFirst(2).split(separator: "/") {
                target = target?.objectValue?[String(part).replacingOccurrences(of: "~1", with: "/")
                    .replacingOccurrences(of: "~0", with: "~")]
            }
            guard let target else { throw Unresolvable(description: reference) }
            current = target
            hops += 1
        }
        return current
    }

    /// The example bodies an operation documents for a status: its `example`, or each of its
    /// `examples` by name, references resolved.
    static func exampleBodies(_ document: JSONObject, _ operation: String, _ status: String) throws
        -> [(name: String, body: JSONValue)]
    {
        let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2,
              let raw = document["paths"]?.objectValue?[parts[1]]?.objectValue?[parts[0].lowercased()]?
                .objectValue?["responses"]?.objectValue?[status]
        else { throw Unresolvable(description: "\(operation) documents no \(status)") }
        let response = try resolve(raw, in: document)
        guard let media = response.objectValue?["content"]?.objectValue?["application/json"]?.objectValue else { return [] }
        var bodies: [(String, JSONValue)] = []
        if let example = media["example"] { bodies.append(("example", example)) }
        for (name, example) in media["examples"]?.objectValue ?? JSONObject() {
            if let value = try resolve(example, in: document).objectValue?["value"] { bodies.append((name, value)) }
        }
        return bodies
    }

    /// `{"detail": "…"}` on `/v1`, `{"errors": ["…"]}` elsewhere; `/ready` answers its status object.
    static func hasFamilyShape(_ body: JSONValue, path: String) -> Bool {
        guard let object = body.objectValue else { return false }
        if path == "/ready" { return object["status"]?.stringValue != nil }
        if path.hasPrefix("/v1/") { return object.count == 1 && object["detail"]?.stringValue?.isEmpty == false }
        guard object.count == 1, let errors = object["errors"]?.arrayValue, !errors.isEmpty else { return false }
        return errors.allSatisfy { $0.stringValue?.isEmpty == false }
    }
}
