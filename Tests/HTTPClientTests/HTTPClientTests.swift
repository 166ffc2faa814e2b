import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A local HTTPServer: `/echo` answers the request's method, headers and body as text,
/// `/status/<n>` answers `n`, `/sleep` answers after 5 s, `/busy` answers 429 with `Retry-After`.
private struct TestResponder: HTTPResponder {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if request.path == "/sleep" {
            try? await Task.sleep(for: .seconds(5))
            return HTTPResponse(status: 200, body: Array("late".utf8))
        }
        if request.path == "/busy" {
            return HTTPResponse(status: 429, headers: ["Retry-After": "30", "X-Other": "1"], body: Array("busy".utf8))
        }
        if request.path.hasPrefix("/status/"), let status = Int(request.path.dropFirst("/status/".count)) {
            return HTTPResponse(status: status, body: Array("status \(status)".utf8))
        }
        let text = "\(request.method.rawValue) \(request.headers["X-Test"] ?? "-") \(request.headers["Content-Type"] ?? "-") "
        return HTTPResponse(status: 200, body: Array(text.utf8) + request.body)
    }
}

/// How long a request to the local server may take. The server answers on Swift's shared task
/// pool, which the rest of a loaded 2-core run can keep busy for longer than the client's 10 s
/// default; only the timeout tests use shorter ones.
private let patient: Duration = .seconds(120)

private func withServer(_ body: (UInt16) async throws -> Void) async throws {
    let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 2),
                            responder: TestResponder())
    try server.start()
    do {
        try await body(server.port)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

@Suite struct HTTPClientTests {
    @Test func postsHeadersAndBodyAndReadsTheAnswer() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let response = try await client.send(HTTPClientRequest(
                url: "http://127.0.0.1:\(port)/echo",
                headers: [("X-Test", "yes"), ("Content-Type", "application/json")], body: Array(#"{"a":1}"#.utf8), timeout: patient))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"POST yes application/json {"a":1}"#)
            await client.shutdown()
        }
    }

    @Test func anyStatusIsAnAnswer() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/status/500", body: [1], timeout: patient))
            #expect(response.status == 500)
            #expect(String(decoding: response.body, as: UTF8.self) == "status 500")
            await client.shutdown()
        }
    }

    @Test func theResponseHeadersAskedForComeBackByNameInAnyCase() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let asked = try await client.send(HTTPClientRequest(
                url: "http://127.0.0.1:\(port)/busy", timeout: patient, responseHeaders: ["retry-after", "X-Missing"]))
            #expect(asked.status == 429 && asked.headers == ["retry-after": "30"])
            #expect(asked.header("Retry-After") == "30" && asked.header("X-Other") == nil)
            let notAsked = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/busy", timeout: patient))
            #expect(notAsked.status == 429 && notAsked.headers.isEmpty)
            await client.shutdown()
        }
    }

    @Test func aSlowAnswerTimesOutWhileOthersComplete() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            // The slow request's own time, so a fast one the server answers late cannot blur it.
            async let slow = { () async -> (Result<HTTPClientResponse, HTTPClientError>, Duration) in
                let started = ContinuousClock.now
                let result = await Result(catching: { () async throws(HTTPClientError) -> HTTPClientResponse in
                    try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/sleep", timeout: .milliseconds(300)))
                })
                return (result, ContinuousClock.now - started)
            }()
            let fast = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/echo", body: Array("x".utf8), timeout: patient))
            #expect(fast.status == 200)
            let (result, elapsed) = await slow
            // The server answers after 5 s: a timed-out result is the timeout ending the request
            // before its answer (how long that took is the machine's: a loaded one adds seconds).
            #expect(result.failure == .timedOut, "after \(elapsed)")
            await client.shutdown()
        }
    }

    @Test func manyRequestsRunAtOnce() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/status/\(200 + index % 3)", timeout: patient)).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == (0..<40).map { 200 + $0 % 3 }.sorted())
            await client.shutdown()
        }
    }

    /// Bodies posted as one template come back answered in their order, each with its own
    /// body and the template's headers; an unanswerable one is its own error, not the batch's.
    @Test func aBatchOfBodiesIsAnsweredInOrder() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let template = HTTPClientRequest(url: "http://127.0.0.1:\(port)/echo", headers: [("X-Test", "batch"), ("Content-Type", "text/plain")],
                                             timeout: patient)
            let bodies = (0..<50).map { Array("body \($0)".utf8) }
            let answers = await client.send(bodies, as: template)
            #expect(answers.count == 50)
            for (index, answer) in answers.enumerated() {
                let text = try answer.map { String(decoding: $0.body, as: UTF8.self) }.get()
                #expect(text == "POST batch text/plain body \(index)")
            }
            #expect(await client.send([], as: template).isEmpty)
            let nowhere = HTTPClientRequest(url: "http://127.0.0.1:1/echo", timeout: patient)
            let failed = await client.send([[1], [2]], as: nowhere)
            #expect(failed.count == 2 && failed.allSatisfy { if case .failure = $0 { true } else { false } })
            await client.shutdown()
            let late = await client.send([[1]], as: template)
            #expect(late.count == 1 && (try? late[0].get()) == nil)
        }
    }

    /// Distinct requests (each its own URL, headers and body) handed over together come back
    /// answered in their order; one that gets no answer is its own error.
    @Test func aBatchOfDistinctRequestsIsAnsweredInOrder() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            var requests = (0..<20).map {
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/echo", headers: [("X-Test", "request-\($0)"), ("Content-Type", "text/plain")],
                                  body: Array("body \($0)".utf8), timeout: patient)
            }
            requests.append(HTTPClientRequest(url: "http://127.0.0.1:\(port)/status/410", timeout: patient))
            requests.append(HTTPClientRequest(url: "http://127.0.0.1:1/echo", timeout: patient))
            let answers = await client.send(requests)
            #expect(answers.count == 22)
            for index in 0..<20 {
                let text = try answers[index].map { String(decoding: $0.body, as: UTF8.self) }.get()
                #expect(text == "POST request-\(index) text/plain body \(index)")
            }
            #expect((try? answers[20].get())?.status == 410)
            #expect((try? answers[21].get()) == nil)
            #expect(await client.send([HTTPClientRequest]()).isEmpty)
            await client.shutdown()
        }
    }

    /// A finished transfer's handle serves the next request, carrying none of the one before
    /// it: its method, headers, body and peer filter are the new request's alone.
    @Test func aReusedHandleCarriesNothingOfTheRequestBefore() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let url = "http://127.0.0.1:\(port)/echo"
            // libcurl's own Content-Type for a body sent without one.
            func text(_ request: HTTPClientRequest) async throws -> String {
                String(decoding: try await client.send(request).body, as: UTF8.self)
            }
            #expect(try await text(HTTPClientRequest(url: url, method: "PUT", headers: [("X-Test", "first")], body: Array("one".utf8),
                                                     timeout: patient))
                    == "PUT first application/x-www-form-urlencoded one")
            #expect(client.idleHandles == 1)
            #expect(try await text(HTTPClientRequest(url: url, body: Array("two".utf8), timeout: patient))
                    == "POST - application/x-www-form-urlencoded two")
            #expect(try await text(HTTPClientRequest(url: url, method: "GET", timeout: patient)) == "GET - - ")
            let refused = await Result(catching: { () async throws(HTTPClientError) -> HTTPClientResponse in
                try await client.send(HTTPClientRequest(url: "http://receiver.invalid:\(port)/echo", body: [1],
                                                        timeout: patient, pinnedAddresses: ["receiver.invalid:\(port):127.0.0.1"],
                                                        peerFilter: { _ in "refused" }))
            })
            #expect(refused.failure == .refusedAddress("refused"))
            // Neither the pin nor the filter stays on the handle.
            #expect(try await text(HTTPClientRequest(url: url, headers: [("Content-Type", "a/b")], body: Array("three".utf8), timeout: patient))
                    == "POST - a/b three")
            #expect(client.idleHandles == 1)
            await client.shutdown()
        }
    }

    /// Requests alike but for their bodies share a header list; one with other headers between
    /// them gets its own, and those after it theirs again.
    @Test func requestsWithTheSameHeadersShareTheirListAndOthersKeepTheirOwn() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let labels = ["a", "a", "b", "a", "a", "c"]
            let answers = await client.send(labels.enumerated().map { index, label in
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/echo", headers: [("X-Test", label), ("Content-Type", "text/plain")],
                                  body: Array("\(index)".utf8), timeout: patient)
            })
            for (index, label) in labels.enumerated() {
                #expect(try answers[index].map { String(decoding: $0.body, as: UTF8.self) }.get() == "POST \(label) text/plain \(index)")
            }
            await client.shutdown()
        }
    }

    @Test func aPinnedHostConnectsToTheGivenAddressWithoutResolving() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let response = try await client.send(HTTPClientRequest(
                url: "http://receiver.invalid:\(port)/echo", body: Array("pinned".utf8),
                timeout: patient, pinnedAddresses: ["receiver.invalid:\(port):127.0.0.1"]))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).hasSuffix("pinned"))
            await client.shutdown()
        }
    }

    /// The filter is asked about the address libcurl is about to connect to (here a name pinned
    /// to loopback) and can refuse it before the socket opens; nil lets the request through.
    @Test func aPeerFilterSeesAndCanRefuseTheAddressConnectedTo() async throws {
        try await withServer { port in
            let client = try HTTPClient()
            let seen = Mutex<[[UInt8]]>([])
            func send(refusing: Bool) async -> Result<HTTPClientResponse, HTTPClientError> {
                await Result(catching: { () async throws(HTTPClientError) -> HTTPClientResponse in
                    try await client.send(HTTPClientRequest(
                        url: "http://receiver.invalid:\(port)/echo", body: Array("x".utf8),
                        timeout: patient, pinnedAddresses: ["receiver.invalid:\(port):127.0.0.1"],
                        peerFilter: { address in
                            seen.withLock { $0.append(address) }
                            return refusing ? "refused \(address)" : nil
                        }))
                })
            }
            #expect(await send(refusing: true).failure == .refusedAddress("refused [127, 0, 0, 1]"))
            #expect(seen.withLock { $0 } == [[127, 0, 0, 1]])
            #expect(try await send(refusing: false).get().status == 200)
            #expect(seen.withLock { $0 } == [[127, 0, 0, 1], [127, 0, 0, 1]])
            await client.shutdown()
        }
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        // A port bound but not listening: connecting is refused, and no other test can be given
        // the port meanwhile (a port a server has just released can be).
        let (descriptor, port) = Self.boundPort()
        defer { close(descriptor) }
        let client = try HTTPClient()
        // The refusal is immediate; the timeout only keeps a loaded machine from turning it into
        // .timedOut, which would fail the test as much as any other outcome but .transport.
        let result = await Result(catching: { () async throws(HTTPClientError) -> HTTPClientResponse in
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/echo", timeout: .seconds(30)))
        })
        guard case .failure(.transport) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        await client.shutdown()
    }

    @Test func aShutDownClientRefusesNewRequests() async throws {
        let client = try HTTPClient()
        await client.shutdown()
        let result = await Result(catching: { () async throws(HTTPClientError) -> HTTPClientResponse in
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:1/", timeout: patient))
        })
        #expect(result.failure == .shutDown)
    }

    /// A socket bound to an ephemeral port of 127.0.0.1 without listening: connections to it are
    /// refused for as long as the descriptor stays open.
    private static func boundPort() -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                precondition(bind(descriptor, $0, length) == 0)
                _ = getsockname(descriptor, $0, &length)
            }
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}

extension Result {
    init(catching body: () async throws(Failure) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }

    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
