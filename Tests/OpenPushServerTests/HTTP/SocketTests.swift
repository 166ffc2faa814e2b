import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// Behaviour that only shows over a real socket: body limits, request ids, the whole stack.
@Suite struct SocketTests {
    @Test func servesOverHTTPWithARequestID() async throws {
        let app = try await TestApp.make()
        let server = try app.startHTTP()
        defer { Task { await server.shutdown() } }
        let first = try await Curl.run(["http://127.0.0.1:\(server.port)/health"])
        let second = try await Curl.run(["http://127.0.0.1:\(server.port)/health"])
        #expect(first.status == 200)
        #expect(try JSONValue.parse(first.body) == ["status": "ok"])
        let firstID = try #require(first.headers["x-request-id"])
        let secondID = try #require(second.headers["x-request-id"])
        #expect(!firstID.isEmpty && firstID != secondID)
        let errorResponse = try await Curl.run(["http://127.0.0.1:\(server.port)/v1/nothing"])
        #expect(errorResponse.status == 404)
        #expect(errorResponse.headers["x-request-id"] != nil)
    }

    @Test(arguments: [
        ("/v1/apps/app_1/test/echo", JSONValue.object(["detail": "the request body is larger than the 4096-byte limit"])),
        ("/apps/app_1/test/echo", JSONValue.object(["errors": ["the request body is larger than the 4096-byte limit"]])),
    ])
    func oversizedBodiesAre413InTheFamilyShape(_ path: String, _ expected: JSONValue) async throws {
        let app = try await TestApp.make(configure: { $0.maxBodyBytes = 4096 }, routes: TestRoutes.register)
        let server = try app.startHTTP()
        defer { Task { await server.shutdown() } }
        let file = try TemporaryDirectory.make(prefix: "body") + "/big.json"
        try Data(("{\"pad\": \"" + String(repeating: "x", count: 10_000) + "\"}").utf8).write(to: URL(fileURLWithPath: file))
        let url = "http://127.0.0.1:\(server.port)\(path)"
        let response = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@\(file)", url])
        #expect(response.status == 413)
        #expect(try JSONValue.parse(response.body) == expected)
        let small = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "{\"a\":1}", url])
        #expect(small.status == 200)
        let metrics = try await Curl.run(["http://127.0.0.1:\(server.port)/metrics"])
        #expect(metrics.text.contains("status=\"413\""))
    }

    @Test func pathParametersAndQueryAreDecodedExactlyOnce() async throws {
        let app = try await TestApp.make(routes: TestRoutes.register)
        let server = try app.startHTTP()
        defer { Task { await server.shutdown() } }
        let url = "http://127.0.0.1:\(server.port)/v1/apps/app_1/test/params/a%2Fb%2541%C3%A9?q=x+y%26z&r=%2B"
        let response = try await Curl.run([url])
        #expect(response.status == 200)
        #expect(try JSONValue.parse(response.body) == ["value": "a/b%41é", "query": ["q": "x y&z", "r": "+"]])
    }
}
