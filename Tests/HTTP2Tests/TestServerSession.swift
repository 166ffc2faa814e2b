import HTTP2

/// A request as the test server saw it.
typealias ReceivedRequest = HTTP2ServerSession.Request

/// What the test server answers; `nil` from the handler leaves the stream open.
struct TestResponse {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
}

/// `HTTP2ServerSession` plus a handler, for pairing with `HTTP2ClientSession` in memory.
/// Collects complete requests and answers each through `handler`.
final class TestServerSession {
    let session: HTTP2ServerSession
    private(set) var requests: [ReceivedRequest] = []
    var handler: (ReceivedRequest) -> TestResponse?

    init(settings: [HTTP2Setting] = [],
         handler: @escaping (ReceivedRequest) -> TestResponse? = { _ in TestResponse(status: 200) }) {
        self.handler = handler
        session = try! HTTP2ServerSession(settings: settings)
    }

    func submitSettings(_ settings: [HTTP2Setting]) { try! session.submitSettings(settings) }
    func submitGoAway(lastStreamID: Int32) { try! session.submitGoAway(lastStreamID: lastStreamID) }
    func submitReset(streamID: Int32, errorCode: UInt32) { try! session.submitReset(streamID: streamID, errorCode: errorCode) }

    func respond(streamID: Int32, with response: TestResponse) {
        let headers = response.headers.map { HTTP2Header(name: $0.0, value: $0.1) }
        try! session.respond(streamID: streamID, status: response.status, headers: headers, body: response.body)
    }

    func pendingOutput() -> [UInt8] { try! session.pendingOutput() }

    func receive(_ bytes: [UInt8]) {
        for request in try! session.receive(bytes) {
            requests.append(request)
            if let response = handler(request) { respond(streamID: request.streamID, with: response) }
        }
    }
}
