import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import Testing

/// A local HTTPServer that counts the requests it is answering at once: `/held` answers once the
/// test releases it, `/sleep/<ms>` after that long, anything else at once.
private final class CountingResponder: HTTPResponder {
    private struct State {
        var inProgress = 0
        var mostAtOnce = 0
        var released = false
    }

    private let state = Mutex(State())

    var inProgress: Int { state.withLock { $0.inProgress } }
    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

    func release() {
        state.withLock { $0.released = true }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        state.withLock { state in
            state.inProgress += 1
            state.mostAtOnce = max(state.mostAtOnce, state.inProgress)
        }
        if request.path == "/held" {
            while !state.withLock({ $0.released }) { try? await Task.sleep(for: .milliseconds(5)) }
        } else if request.path.hasPrefix("/sleep/"), let milliseconds = Int(request.path.dropFirst("/sleep/".count)) {
            try? await Task.sleep(for: .milliseconds(milliseconds))
        }
        state.withLock { $0.inProgress -= 1 }
        return HTTPResponse(status: 200, body: Array(request.path.utf8))
    }
}

private func withCountingServer(_ body: (UInt16, CountingResponder) async throws -> Void) async throws {
    let responder = CountingResponder()
    let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 2),
                            responder: responder)
    try server.start()
    do {
        try await body(server.port, responder)
    } catch {
        responder.release()
        await server.shutdown()
        throw error
    }
    responder.release()
    await server.shutdown()
}

/// Waits until `condition` holds. The bound only ends a test whose condition never comes (it
/// fails then); a loaded machine reaches the state later, never a different one.
private func eventually(_ what: Comment, _ condition: () -> Bool) async throws {
    let giveUp = ContinuousClock.now + .seconds(60)
    while !condition() {
        guard ContinuousClock.now < giveUp else {
            Issue.record("never: \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

private func send(_ client: HTTPClient, _ request: HTTPClientRequest) async -> Result<HTTPClientResponse, HTTPClientError> {
    await Result(catching: { () async throws(HTTPClientError) -> HTTPClientResponse in try await client.send(request) })
}

/// HTTP/1.1 requests of an origin past `maxHostConnections` wait in the client's own queue, not
/// in libcurl's pending state.
@Suite struct HTTP1OriginQueueTests {
    @Test func requestsPastTheLimitWaitInTheClientAndAllComplete() async throws {
        try await withCountingServer { port, server in
            let client = try HTTPClient(maxHostConnections: 2)
            async let answers = client.send((0..<20).map { _ in HTTPClientRequest(url: "http://127.0.0.1:\(port)/held") })
            try await eventually("2 requests at the server and 18 in the client's queue") {
                server.inProgress == 2 && client.queuedRequests == 18
            }
            server.release()
            let results = await answers
            #expect(results.count == 20)
            #expect(results.allSatisfy { (try? $0.get())?.status == 200 }, "\(results)")
            #expect(server.mostAtOnce == 2)
            #expect(client.queuedRequests == 0)
            await client.shutdown()
        }
    }

    /// Requests sent one by one (each its own hand-over) and answered slowly keep to the limit too.
    @Test func slowAnswersNeverRunPastTheLimit() async throws {
        try await withCountingServer { port, server in
            let client = try HTTPClient(maxHostConnections: 2)
            let statuses = await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<20 {
                    group.addTask { try? await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/sleep/100")).status }
                }
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(server.mostAtOnce <= 2)
            await client.shutdown()
        }
    }

    /// The second request waits behind the first, which the server holds; its 1 s counts from
    /// when it was handed over, so it times out while the first is still held (counted from
    /// when it left the queue, it would be answered 200 once the first is released).
    @Test func aQueuedRequestsTimeoutCountsFromHandOver() async throws {
        try await withCountingServer { port, server in
            let client = try HTTPClient(maxHostConnections: 1)
            async let first = send(client, HTTPClientRequest(url: "http://127.0.0.1:\(port)/held"))
            try await eventually("the first request at the server") { server.inProgress == 1 }
            // Should the timeout wait for the first to end, the first still ends, after a while.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(30))
                server.release()
            }
            let second = await send(client, HTTPClientRequest(url: "http://127.0.0.1:\(port)/echo", timeout: .seconds(1)))
            #expect(second.failure == .timedOut)
            #expect(server.inProgress == 1, "the first request was still held")
            watchdog.cancel()
            server.release()
            #expect(try await first.get().status == 200)
            await client.shutdown()
        }
    }

    @Test func anotherOriginIsNotHeldBackByAFullQueue() async throws {
        try await withCountingServer { heldPort, held in
            try await withCountingServer { freePort, _ in
                let client = try HTTPClient(maxHostConnections: 1)
                async let waiting = client.send((0..<3).map { _ in HTTPClientRequest(url: "http://127.0.0.1:\(heldPort)/held") })
                try await eventually("1 request at the held server and 2 in the client's queue") {
                    held.inProgress == 1 && client.queuedRequests == 2
                }
                let other = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(freePort)/other"))
                #expect(other.status == 200 && String(decoding: other.body, as: UTF8.self) == "/other")
                #expect(held.inProgress == 1 && client.queuedRequests == 2)
                held.release()
                #expect(await waiting.allSatisfy { (try? $0.get())?.status == 200 })
                await client.shutdown()
            }
        }
    }

    /// `shutdown()` takes no new request, but those already queued still run before it returns.
    @Test func queuedRequestsStillRunAfterShutdown() async throws {
        try await withCountingServer { port, server in
            let client = try HTTPClient(maxHostConnections: 1)
            async let answers = client.send((0..<4).map { _ in HTTPClientRequest(url: "http://127.0.0.1:\(port)/held") })
            try await eventually("1 request at the server and 3 in the client's queue") {
                server.inProgress == 1 && client.queuedRequests == 3
            }
            async let stopped: Void = client.shutdown()
            // Another origin (a name pinned to the same server) is answered until the client
            // refuses it: then the shutdown has begun, with 3 requests still queued.
            let probe = HTTPClientRequest(url: "http://probe.invalid:\(port)/probe", pinnedAddresses: ["probe.invalid:\(port):127.0.0.1"])
            while true {
                let result = await send(client, probe)
                if result.failure == .shutDown { break }
                #expect(try result.get().status == 200)
            }
            #expect(client.queuedRequests == 3)
            server.release()
            #expect(await answers.allSatisfy { (try? $0.get())?.status == 200 })
            await stopped
        }
    }
}
