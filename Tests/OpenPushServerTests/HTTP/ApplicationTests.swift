import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

@Suite struct ApplicationTests {
    @Test func healthAnswersOK() async throws {
        let app = try await TestApp.make()
        let response = await app.request(.get, "/health")
        #expect(response.status == 200)
        #expect(response.json == ["status": "ok"])
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test func readyWhenMigrated() async throws {
        let app = try await TestApp.make()
        let response = await app.request(.get, "/ready")
        #expect(response.status == 200)
        #expect(response.json == ["status": "ready"])
    }

    @Test func notReadyWhenAMigrationIsMissing() async throws {
        let app = try await TestApp.make()
        let unapplied = Migration(version: 999_999, name: "not_yet", sql: "SELECT 1")
        var services = app.services
        services.migrations.append(unapplied)
        let application = OpenPushApplication(services: services, logger: .discarding())
        let response = TestResponse(await application.respond(to: HTTPRequest(method: .get, path: "/ready")))
        #expect(response.status == 503)
        #expect(response.json?.objectValue?["status"] == "unavailable")
    }

    @Test func unknownPathIs404InTheFamilyShape() async throws {
        let app = try await TestApp.make()
        let native = await app.request(.get, "/v1/apps/app_1/nothing")
        #expect(native.status == 404)
        #expect(native.json == ["detail": "Not Found"])
        let rest = await app.request(.get, "/nothing")
        #expect(rest.status == 404)
        #expect(rest.json == ["errors": ["Not Found"]])
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let response = await app.request(.post, "/health")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET")
        #expect(response.json == ["errors": ["Method Not Allowed"]])
        let native = await app.request(.get, "/v1/apps/app_1/test/echo")
        #expect(native.status == 405)
        #expect(native.json == ["detail": "Method Not Allowed"])
    }

    @Test(arguments: [
        ("/v1/apps/app_1/test/echo", JSONValue.object(["detail": "the request body must be a JSON object"])),
        ("/apps/app_1/test/echo", JSONValue.object(["errors": ["the request body must be a JSON object"]])),
    ])
    func malformedOrNonObjectBodiesAre400(_ path: String, _ expected: JSONValue) async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        for body in ["{not json", "[1, 2]", "\"text\"", "", "null", "{\"a\": 1} trailing"] {
            let response = await app.request(.post, path, body: Array(body.utf8))
            #expect(response.status == 400, "body \(body)")
            #expect(response.json == expected, "body \(body)")
        }
    }

    @Test func jsonBodiesReachTheHandlerWithPathParameters() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let response = await app.request(.post, "/v1/apps/app_%C3%A9/test/echo", json: ["token": "abc", "n": 2])
        #expect(response.status == 200)
        #expect(response.json == ["app": "app_é", "echo": ["token": "abc", "n": 2]])
    }

    @Test func apiErrorsKeepStatusAndEveryMessage() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let rest = await app.request(.get, "/apps/app_1/test/fail")
        #expect(rest.status == 409)
        #expect(rest.json == ["errors": ["first problem", "second problem"]])
        let native = await app.request(.get, "/v1/apps/app_1/test/fail")
        #expect(native.status == 409)
        #expect(native.json == ["detail": "first problem; second problem"])
    }

    /// Core's validators know no status: the edge answers their refusal as a `400`.
    @Test func invalidInputIs400InTheFamilyShape() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let rest = await app.request(.get, "/apps/app_1/test/invalid")
        #expect(rest.status == 400)
        #expect(rest.json == ["errors": ["first field is wrong", "second field is wrong"]])
        let native = await app.request(.get, "/v1/apps/app_1/test/invalid")
        #expect(native.status == 400)
        #expect(native.json == ["detail": "first field is wrong; second field is wrong"])
    }

    @Test func unexpectedErrorsAre500WithoutInternals() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let response = await app.request(.get, "/apps/app_1/test/crash")
        #expect(response.status == 500)
        let message = try #require(response.json?.objectValue?["errors"]?.arrayValue?.first?.stringValue)
        #expect(message.hasPrefix("internal server error (request "))
        #expect(!message.contains("Unexpected"))
        #expect(app.logs.all.contains { $0.level == .error && $0.message == "unhandled error" })
    }

    @Test func databaseRoutesWork() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let response = await app.request(.get, "/apps/app_1/test/database")
        #expect(response.status == 200)
        #expect(response.json == ["answer": 42])
    }

    @Test func everyRequestIsLoggedAndCounted() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        _ = await app.request(.get, "/health")
        _ = await app.request(.get, "/apps/app_9/test/fail")
        _ = await app.request(.get, "/nope")
        let lines = app.logs.all.filter { $0.metadata["http.route"] != nil }
        #expect(lines.map(\.message) == ["GET /health 200", "GET /apps/app_9/test/fail 409", "GET /nope 404"])
        let metrics = await app.request(.get, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains(#"openpush_http_requests_total{method="GET",route="/apps/{app_id}/test/fail",status="409"} 1"#))
        #expect(metrics.text.contains(#"openpush_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
        #expect(metrics.text.contains("openpush_db_pool_size 4"))
        #expect(metrics.text.contains("openpush_db_pool_in_use "))
        #expect(metrics.text.contains("openpush_db_pool_waiting "))
        #expect(metrics.text.contains("openpush_http_request_duration_seconds_bucket{route=\"/health\",le=\"+Inf\"} 1"))
    }

    @Test func servesTheOpenAPIDocument() async throws {
        let app = try await TestApp.make()
        let response = await app.request(.get, "/openapi.json")
        #expect(response.status == 200)
        #expect(response.json?.objectValue?["openapi"] == "3.1.0")
    }
}
