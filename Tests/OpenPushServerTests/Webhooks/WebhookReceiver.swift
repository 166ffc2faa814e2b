import Foundation
import HTTPServer
import OpenPushCore
import Synchronization

/// A local webhook receiver over HTTPServer: records every POST's headers and raw body, and
/// answers with the status (after the delay) it is told to.
final class WebhookReceiver: HTTPResponder, Sendable {
    struct Received: Sendable {
        var headers: HTTPHeaders
        var body: [UInt8]
        var at: ContinuousClock.Instant

        var eventIDs: [String] {
            guard case .object(let object)? = try? JSONValue.parse(body), case .array(let events)? = object["events"] else { return [] }
            return events.compactMap { $0.objectValue?["id"]?.stringValue }
        }
    }

    private struct State {
        var received: [Received] = []
        var status = 200
        var delay: Duration = .zero
        var held = false
        var answered = 0
    }

    private let state = Mutex(State())
    private let server: HTTPServer

    init() throws {
        let box = Box()
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 4), responder: box)
        box.receiver.withLock { $0 = nil }
        try server.start()
        box.receiver.withLock { $0 = self }
    }

    var url: String { "http://127.0.0.1:\(server.port)/hooks" }
    var port: UInt16 { server.port }

    func answer(status: Int, after delay: Duration = .zero) {
        state.withLock { $0.status = status; $0.delay = delay }
    }

    /// Requests wait, unanswered, until `release()`: a hanging endpoint whose hang does not
    /// end on a timer, so a test can tell "before it answered" without measuring time.
    func hold() { state.withLock { $0.held = true } }
    func release() { state.withLock { $0.held = false } }
    /// How many requests have been answered.
    var answered: Int { state.withLock { $0.answered } }

    var received: [Received] { state.withLock { $0.received } }
    var eventIDs: [String] { received.flatMap(\.eventIDs) }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let (status, delay) = state.withLock { state in
            state.received.append(Received(headers: request.headers, body: request.body, at: .now))
            return (state.status, state.delay)
        }
        while state.withLock({ $0.held }) { try? await Task.sleep(for: .milliseconds(20)) }
        if delay > .zero { try? await Task.sleep(for: delay) }
        state.withLock { $0.answered += 1 }
        return HTTPResponse(status: status, body: Array("ok".utf8))
    }

    func shutdown() async { await server.shutdown() }

    /// Waits (up to `timeout`) until `condition` holds for what was received.
    func wait(timeout: Duration = .seconds(120), until condition: ([Received]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(received) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(received)
    }

    /// The server needs its responder before `self` exists: this forwards to it.
    private final class Box: HTTPResponder, Sendable {
        let receiver = Mutex<WebhookReceiver?>(nil)
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            guard let receiver = receiver.withLock({ $0 }) else { return HTTPResponse(status: 503) }
            return await receiver.respond(to: request)
        }
    }
}
