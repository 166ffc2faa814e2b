import CNghttp2
import Foundation
import HTTP2
import Testing

@Suite struct HTTP2ClientSessionTests {
    @Test(arguments: [0, 300, 200_000])
    func requestArrivesIntactAndResponseComesBack(bodySize: Int) throws {
        // 200 kB exceeds the server's 64 kB default window: the body must flow across WINDOW_UPDATEs.
        let body = (0..<bodySize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let server = TestServerSession { _ in
            TestResponse(status: 200, headers: [("apns-id", "8F1B0A2C-0000-4C1F-9E2E-1D7A3B5C6D7E")], body: Array("ok".utf8))
        }
        let client = try HTTP2ClientSession()
        let streamID = try client.submitRequest(headers: apnsRequestHeaders(), body: body)
        let events = try exchange(client, server)

        let request = try #require(server.requests.first)
        #expect(request.streamID == streamID)
        #expect(request.headers.map(\.name) == apnsRequestHeaders().map(\.name))
        #expect(request.headers.map(\.value) == apnsRequestHeaders().map(\.value))
        #expect(request.body == body)

        #expect(events.contains(.response(
            streamID: streamID, status: 200,
            headers: [HTTP2Header(name: "apns-id", value: "8F1B0A2C-0000-4C1F-9E2E-1D7A3B5C6D7E")],
            body: Array("ok".utf8))))
        #expect(client.openStreamCount == 0)
    }

    /// A header named unindexed goes out intact but never into HPACK's dynamic table: fifty
    /// distinct values leave the table as the first request left it. Indexed, each one grows it.
    @Test func unindexedHeadersArriveIntactAndStayOutOfTheDynamicTable() throws {
        func tableSizes(unindexed: [String]) throws -> (first: Int, last: Int, received: [String]) {
            let server = TestServerSession { _ in TestResponse(status: 200) }
            let client = try HTTP2ClientSession()
            var first = 0
            for index in 0..<50 {
                _ = try client.submitRequest(headers: apnsRequestHeaders() + [("apns-id", "id-\(index)")], body: [],
                                             unindexed: unindexed)
                _ = try exchange(client, server)
                if index == 0 { first = client.sentHeaderTableSize }
            }
            return (first, client.sentHeaderTableSize, server.requests.compactMap { $0.value("apns-id") })
        }
        let unindexed = try tableSizes(unindexed: ["apns-id"])
        #expect(unindexed.first > 0 && unindexed.last == unindexed.first)
        #expect(unindexed.received == (0..<50).map { "id-\($0)" })
        let indexed = try tableSizes(unindexed: [])
        #expect(indexed.last > indexed.first)
        #expect(indexed.received == unindexed.received)
    }

    @Test func errorResponseCarriesItsJSONBody() throws {
        struct Rejection: Decodable, Equatable { var reason: String }
        let server = TestServerSession { _ in
            TestResponse(status: 400, headers: [("apns-id", "id-1"), ("content-type", "application/json")],
                         body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        }
        let client = try HTTP2ClientSession()
        let streamID = try client.submitRequest(headers: apnsRequestHeaders(), body: Array("{}".utf8))
        let response = try #require(responses(in: try exchange(client, server))[streamID])
        #expect(response.status == 400)
        #expect(response.headers.contains(HTTP2Header(name: "apns-id", value: "id-1")))
        #expect(try JSONDecoder().decode(Rejection.self, from: Data(response.body)) == Rejection(reason: "BadDeviceToken"))
    }

    @Test func manyConcurrentStreamsEachGetTheirOwnResponse() throws {
        // The server echoes the path, so a mixed-up stream would show.
        let server = TestServerSession { request in
            TestResponse(status: 200, body: Array((request.value(":path") ?? "").utf8) + request.body)
        }
        let client = try HTTP2ClientSession()
        var expected: [Int32: [UInt8]] = [:]
        for index in 0..<300 {
            let body = Array("payload-\(index)".utf8)
            let streamID = try client.submitRequest(headers: apnsRequestHeaders(path: "/3/device/\(index)"), body: body)
            expected[streamID] = Array("/3/device/\(index)".utf8) + body
        }
        let received = responses(in: try exchange(client, server))
        #expect(received.count == 300)
        #expect(received.mapValues(\.body) == expected)
        #expect(Set(expected.keys).count == 300)
    }

    @Test func serverConcurrencyLimitIsVisibleAndUpdates() throws {
        let server = TestServerSession(settings: [.maxConcurrentStreams(1)])
        let client = try HTTP2ClientSession()
        let first = try exchange(client, server)
        #expect(first.contains(.settingsChanged(maxConcurrentStreams: 1)))
        #expect(client.remoteMaxConcurrentStreams == 1)

        // Over the limit, nghttp2 holds requests back until a stream closes; all still complete.
        let ids = try (0..<3).map { _ in try client.submitRequest(headers: apnsRequestHeaders(), body: [1]) }
        #expect(Set(responses(in: try exchange(client, server)).keys) == Set(ids))

        server.submitSettings([.maxConcurrentStreams(1000)])
        #expect(try exchange(client, server) == [.settingsChanged(maxConcurrentStreams: 1000)])
        #expect(client.remoteMaxConcurrentStreams == 1000)
    }

    @Test func goAwayReportsLastStreamAndRefusesLaterStreams() throws {
        let server = TestServerSession { _ in nil }  // hold every stream open
        let client = try HTTP2ClientSession()
        let ids = try (0..<3).map { _ in try client.submitRequest(headers: apnsRequestHeaders(), body: [1, 2]) }
        _ = try exchange(client, server)
        #expect(server.requests.count == 3)

        server.submitGoAway(lastStreamID: ids[0])
        let events = try exchange(client, server)
        #expect(events.contains(.goAway(lastStreamID: ids[0], errorCode: 0)))
        #expect(events.contains(.streamReset(streamID: ids[1], errorCode: NGHTTP2_REFUSED_STREAM.rawValue)))
        #expect(events.contains(.streamReset(streamID: ids[2], errorCode: NGHTTP2_REFUSED_STREAM.rawValue)))

        // The stream at or below last-stream-id may still finish.
        server.respond(streamID: ids[0], with: TestResponse(status: 200))
        #expect(try exchange(client, server) == [.response(streamID: ids[0], status: 200, headers: [], body: [])])
        #expect(client.openStreamCount == 0)
    }

    @Test func resetStreamIsReportedWithItsErrorCode() throws {
        let server = TestServerSession { _ in nil }
        let client = try HTTP2ClientSession()
        let streamID = try client.submitRequest(headers: apnsRequestHeaders(), body: [])
        _ = try exchange(client, server)
        server.submitReset(streamID: streamID, errorCode: NGHTTP2_CANCEL.rawValue)
        #expect(try exchange(client, server) == [.streamReset(streamID: streamID, errorCode: NGHTTP2_CANCEL.rawValue)])
    }

    @Test func pingIsAcknowledged() throws {
        let server = TestServerSession()
        let client = try HTTP2ClientSession()
        _ = try exchange(client, server)
        try client.submitPing()
        #expect(client.wantsWrite)
        #expect(try exchange(client, server) == [.pingAck])
    }

    @Test func clientGoAwayIsSent() throws {
        let server = TestServerSession()
        let client = try HTTP2ClientSession()
        _ = try exchange(client, server)
        try client.submitGoAway()
        #expect(client.wantsWrite)
        _ = try exchange(client, server)
        #expect(!client.wantsWrite)
    }

    @Test func garbageFromThePeerEndsTheSession() throws {
        // A connection error is not thrown: nghttp2 queues GOAWAY(PROTOCOL_ERROR) and stops
        // wanting I/O, which the owner sees through wantsRead/wantsWrite.
        let client = try HTTP2ClientSession()
        _ = try client.pendingOutput()
        _ = try client.submitRequest(headers: apnsRequestHeaders(), body: [])
        let events = try client.receive(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        // No event for the never-sent request: the owner fails what is outstanding when the session ends.
        #expect(events.isEmpty)
        #expect(client.openStreamCount == 1)
        let goAway = try client.pendingOutput()
        #expect(goAway.count >= 17)
        #expect(goAway.count >= 9 && goAway[3] == 0x7)  // frame type GOAWAY
        #expect(!client.wantsRead)
        #expect(!client.wantsWrite)
    }
}
