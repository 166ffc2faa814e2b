import Testing
@testable import APNs
import OpenPushCore

/// Requests that carry their own `authorization` (how FCM is sent to) over the client's
/// loops and connections, against `H2TestServer`: sent as given, answered as they came, and
/// kept through GOAWAY, lost connections and the server's stream limit like pushes.
@Suite struct APNSClientRequestsTests {
    static func body(_ index: Int) -> [UInt8] { Array(#"{"message":{"token":"device-\#(index)"}}"#.utf8) }

    @Test func requestsGoOutWithTheirOwnHeadersAndComeBackAsTheyCame() async throws {
        let server = H2TestServer { request in
            request.body == Self.body(1)
                ? .respond(status: 429, headers: [("retry-after", "7")], body: Array(#"{"error":{"status":"RESOURCE_EXHAUSTED"}}"#.utf8))
                : .respond(status: 200, body: Array(#"{"name":"projects/p/messages/1"}"#.utf8))
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let results = await client.post(
            [Self.body(0), Self.body(1)], path: "/v1/projects/p/messages:send",
            fields: [("authorization", "Bearer ya29.token"), ("content-type", "application/json")],
            sender: APNSSender(tenant: "app_a"))
        await client.shutdown()

        let accepted = try results[0].get(), limited = try results[1].get()
        #expect(accepted.status == 200 && accepted.body == Array(#"{"name":"projects/p/messages/1"}"#.utf8))
        #expect(limited.status == 429 && limited.header("retry-after") == "7" && limited.header("apns-id") == nil)
        let seen = server.snapshot().requests
        #expect(seen.count == 2)
        for request in seen {
            #expect(request.value(":method") == "POST" && request.value(":scheme") == "http")
            #expect(request.value(":path") == "/v1/projects/p/messages:send")
            // Its own bearer token, not a provider token of the client's.
            #expect(request.headers.filter { $0.name == "authorization" }.map(\.value) == ["Bearer ya29.token"])
            #expect(request.value("content-type") == "application/json")
        }
        #expect(Set(seen.map(\.body)) == [Self.body(0), Self.body(1)])
    }

    @Test func goAwayAndALostConnectionLoseNoRequest() async throws {
        let answered = Tally<[UInt8]>()
        let server = H2TestServer { request in
            if request.connection == 0, request.streamID == 79 {
                answered.add(request.body)
                return .respondThenGoAway(status: 200)
            }
            if request.connection == 1, request.streamID == 41 { return .dropConnection }
            answered.add(request.body)
            return .respond(status: 200)
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, connections: 1)
        let results = await client.post((0..<600).map(Self.body), path: "/v1/projects/p/messages:send",
                                        fields: [("authorization", "Bearer t")], sender: APNSSender(tenant: "app_a"))
        await client.shutdown()

        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        // Every one answered: those refused by GOAWAY or lost with the connection went out again
        // (a lost one may have been processed before the connection went, so at least once).
        let counts = answered.snapshot
        #expect(counts.count == 600 && counts.values.allSatisfy { $0 >= 1 })
        #expect(server.snapshot().connections >= 3)
    }

    @Test func theServersStreamLimitHolds() async throws {
        var options = H2TestServer.Options()
        options.maxConcurrentStreams = 3
        let server = H2TestServer(options: options) { _ in .respond(status: 200) }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, connections: 1)
        let results = await client.post((0..<200).map(Self.body), path: "/v1/projects/p/messages:send",
                                        fields: [("authorization", "Bearer t")], sender: APNSSender(tenant: "app_a"))
        await client.shutdown()

        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        let records = server.snapshot()
        #expect(records.connections == 1)
        let samples = try #require(records.concurrency[0])
        #expect(samples.count == 200 && samples.allSatisfy { $0.open <= 3 })
        #expect(samples.contains { $0.open == 3 })
    }

    @Test func anUnsendableHeaderFailsTheRequestsBeforeTheWire() async throws {
        let server = H2TestServer { _ in .respond(status: 200) }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let results = await client.post([Self.body(0)], path: "/v1/projects/p/messages:send",
                                        fields: [("authorization", "Bearer a\r\nb")], sender: APNSSender(tenant: "app_a"))
        await client.shutdown()
        guard case .failure(let error) = results[0] else {
            Issue.record("expected a failure, got \(results[0])")
            return
        }
        #expect(error.kind == .invalidHeader && server.snapshot().requests.isEmpty)
    }
}
