import HTTP2

/// Pipes bytes between a client and the test server until neither has anything to send,
/// and returns the client's events in order.
func exchange(_ client: HTTP2ClientSession, _ server: TestServerSession) throws -> [HTTP2Event] {
    var events: [HTTP2Event] = []
    while true {
        let toServer = try client.pendingOutput()
        if !toServer.isEmpty { server.receive(toServer) }
        let toClient = server.pendingOutput()
        if !toClient.isEmpty { events += try client.receive(toClient) }
        if toServer.isEmpty && toClient.isEmpty { return events }
    }
}

func responses(in events: [HTTP2Event]) -> [Int32: (status: Int, headers: [HTTP2Header], body: [UInt8])] {
    var result: [Int32: (status: Int, headers: [HTTP2Header], body: [UInt8])] = [:]
    for case let .response(streamID, status, headers, body) in events {
        result[streamID] = (status, headers, body)
    }
    return result
}

func apnsRequestHeaders(path: String = "/3/device/abc123") -> [(name: String, value: String)] {
    [
        (":method", "POST"),
        (":scheme", "https"),
        (":authority", "api.sandbox.push.apple.com"),
        (":path", path),
        ("apns-topic", "com.example.app"),
        ("apns-push-type", "alert"),
        ("authorization", "bearer eyJhbGciOiJFUzI1NiJ9.e30.sig"),
        ("content-type", "application/json"),
    ]
}
