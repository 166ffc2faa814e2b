import HTTP2
import Testing

/// The server session on its own terms; the client tests exercise it as their peer too.
@Suite struct HTTP2ServerSessionTests {
    @Test func requestCarriesPseudoHeadersAndLargeResponsesFlow() throws {
        // 100 kB exceeds one frame and the client's default window would stall it without updates.
        let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        let server = TestServerSession { _ in TestResponse(status: 200, body: body) }
        let client = try HTTP2ClientSession()
        let streamID = try client.submitRequest(headers: apnsRequestHeaders(path: "/3/device/ab"), body: [1])
        let events = try exchange(client, server)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/ab")
        #expect(request.value("apns-topic") == "com.example.app")
        #expect(responses(in: events)[streamID]?.body == body)
    }

    @Test func answeringAResetStreamIsANoOp() throws {
        let server = TestServerSession { _ in nil }
        let client = try HTTP2ClientSession()
        let streamID = try client.submitRequest(headers: apnsRequestHeaders(), body: [])
        _ = try exchange(client, server)
        server.submitReset(streamID: streamID, errorCode: 8)
        _ = try exchange(client, server)
        #expect(try server.session.respond(streamID: streamID, status: 200) == false)
        #expect(try server.session.respond(streamID: 99, status: 200) == false)
    }

    @Test func goAwayDefaultsToTheLastStreamReceived() throws {
        let server = TestServerSession { _ in nil }
        let client = try HTTP2ClientSession()
        let ids = try (0..<2).map { _ in try client.submitRequest(headers: apnsRequestHeaders(), body: []) }
        _ = try exchange(client, server)
        #expect(server.session.lastProcessedStreamID == ids[1])
        try server.session.submitGoAway()
        #expect(try exchange(client, server).contains(.goAway(lastStreamID: ids[1], errorCode: 0)))
    }

    @Test func aClientThatDoesNotSpeakHTTP2IsAnError() throws {
        let session = try HTTP2ServerSession()
        #expect(throws: HTTP2Error.self) { _ = try session.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) }
    }
}
