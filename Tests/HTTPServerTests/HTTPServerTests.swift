import Foundation
import HTTPServer
import Testing

/// Against a real server on port 0, with curl as the client. Serialized so the timing
/// checks do not compete with each other for the two cores.
@Suite(.serialized) struct HTTPServerTests {
    @Test func getEchoesPathQueryAndHeaders() async throws {
        try await withTestServer { _, base in
            let response = try await Curl.request([
                "-H", "X-CUSTOM-header: Mixed Case",
                "\(base)/echo?name=a%20b&x=1&x=2&plus=c+d&empty",
            ])
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.method == "GET")
            #expect(echo.path == "/echo")
            #expect(echo.query == ["name": "a b", "x": "2", "plus": "c d", "empty": ""])
            // Every value of a repeated name, in order (OpenAPI's `multi` lists).
            #expect(echo.queryValues == ["name": ["a b"], "x": ["1", "2"], "plus": ["c d"], "empty": [""]])
            #expect(echo.custom == "Mixed Case")
            #expect(echo.remoteAddress == "127.0.0.1")
        }
    }

    @Test func postEchoesJSONBody() async throws {
        try await withTestServer { _, base in
            let json = #"{"aps":{"alert":"hi"},"n":[1,2,3]}"#
            let response = try await Curl.request([
                "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", json, "\(base)/echo",
            ])
            #expect(response.status == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.method == "POST")
            let sent = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary
            let received = try JSONSerialization.jsonObject(with: Data(echo.body.utf8)) as? NSDictionary
            #expect(sent == received)
        }
    }

    @Test func unknownPathGetsResponderStatus() async throws {
        try await withTestServer { _, base in
            let response = try await Curl.request(["\(base)/missing"])
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == "not found")
        }
    }

    @Test func requestIDIsGeneratedUniqueAndEchoed() async throws {
        try await withTestServer { _, base in
            let first = try await Curl.request(["\(base)/echo"])
            let second = try await Curl.request(["\(base)/echo"])
            let firstID = try #require(first.header("X-Request-Id"))
            let secondID = try #require(second.header("X-Request-Id"))
            #expect(firstID.count == 16)
            #expect(firstID != secondID)
            #expect(try JSONDecoder().decode(Echo.self, from: first.body).requestID == firstID)

            let echoed = try await Curl.request(["-H", "X-Request-Id: client.ID_42-x", "\(base)/echo"])
            #expect(echoed.header("X-Request-Id") == "client.ID_42-x")

            let replaced = try await Curl.request(["-H", "X-Request-Id: not valid!", "\(base)/echo"])
            let replacedID = try #require(replaced.header("X-Request-Id"))
            #expect(replacedID != "not valid!")
            #expect(RequestID.isValid(replacedID))
        }
    }

    @Test func slowAsyncHandlerAnswers() async throws {
        try await withTestServer { _, base in
            let response = try await Curl.request(["\(base)/slow?ms=200"])
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "done")
        }
    }

    @Test func slowRequestsRunConcurrently() async throws {
        try await withTestServer { server, base in
            let count = 50
            var arguments = ["--parallel", "--parallel-immediate", "--parallel-max", "\(count)", "-w", "%{http_code}\\n"]
            for _ in 0..<count {
                arguments += ["-o", "/dev/null", "\(base)/slow?ms=1000"]
            }
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await Curl.run(arguments)
            let elapsed = clock.now - start
            #expect(result.exitCode == 0)
            #expect(result.text.split(separator: "\n") == Array(repeating: "200", count: count))
            // Serially this would take 50 s. Half of that leaves room for the parallel run's load
            // (3 s for 400 ms requests failed in CI while every suite was starting) and still
            // fails a serial server.
            #expect(elapsed < .seconds(25), "50 concurrent 1 s requests took \(elapsed)")
            #expect(await inFlightRequestsSettle(server))
        }
    }

    @Test func keepAliveReusesTheConnection() async throws {
        try await withTestServer { _, base in
            let result = try await Curl.run([
                "-w", "%{http_code} %{num_connects}\\n",
                "-o", "/dev/null", "\(base)/echo",
                "-o", "/dev/null", "\(base)/slow?ms=10",
            ])
            #expect(result.exitCode == 0)
            #expect(result.text == "200 1\n200 0\n")
        }
    }

    @Test(arguments: [
        ["-H", "Expect:"],
        ["-H", "Expect: 100-continue"],
        ["-H", "Transfer-Encoding: chunked"],
    ])
    func bodyOverTheLimitGets413(headers: [String]) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-body-\(UUID().uuidString)")
        try Data(repeating: UInt8(ascii: "a"), count: 200_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withTestServer(maxBodySize: 1024) { server, base in
            let response = try await Curl.request(headers + ["--data-binary", "@\(file.path)", "\(base)/echo"])
            #expect(response.status == 413)
            #expect(String(decoding: response.body, as: UTF8.self) == "too large: 0")
            #expect(response.header("X-Request-Id") != nil)

            // The server still serves after the refused upload.
            let small = try await Curl.request(["--data-binary", String(repeating: "b", count: 1024), "\(base)/echo"])
            #expect(small.status == 200)
            #expect(try JSONDecoder().decode(Echo.self, from: small.body).body.count == 1024)
            #expect(await inFlightRequestsSettle(server))
        }
    }

    @Test func declaredLengthOverLimitIsRefusedBeforeUpload() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-body-\(UUID().uuidString)")
        try Data(repeating: UInt8(ascii: "a"), count: 200_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withTestServer(maxBodySize: 1024) { _, base in
            // With `Expect: 100-continue` the client waits for permission, so nothing is uploaded
            // only if the server answered from the headers alone. curl gives up waiting after 1 s
            // by default and uploads anyway; a loaded machine can take longer to answer.
            let result = try await Curl.run([
                "-H", "Expect: 100-continue", "--expect100-timeout", "30", "--data-binary", "@\(file.path)",
                "-o", "/dev/null", "-w", "%{http_code} %{size_upload}", "\(base)/echo",
            ])
            #expect(result.text == "413 0")
        }
    }

    @Test func shutdownWaitsForInFlightRequest() async throws {
        // A loopback address of its own: once this server has closed its port, another suite's
        // server on 127.0.0.1 may be given the same port number, and the refused-connection check
        // below would reach it.
        var configuration = HTTPServerConfiguration(host: "127.0.0.62", port: 0)
        configuration.shutdownGrace = .seconds(5)
        let server = HTTPServer(configuration: configuration, responder: TestResponder())
        try server.start()
        let base = "http://127.0.0.62:\(server.port)"

        let clock = ContinuousClock()
        let sent = clock.now
        let slow = Task { try await Curl.request(["\(base)/slow?ms=3000"]) }
        let deadline = clock.now + .seconds(30)
        while server.inFlightRequests == 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(server.inFlightRequests == 1)

        await server.shutdown()
        // The handler sleeps 3 s after the request arrived, which is after `sent`, so a shutdown
        // that waits cannot return sooner, however late the poll above saw the request. One that
        // does not wait returns as soon as it is called: unless the poll was 3 s late, earlier.
        // (The 5 s grace covers the 3 s request from any point the poll can call shutdown at.)
        #expect(clock.now - sent >= .milliseconds(3000), "shutdown returned before the request finished")
        #expect(server.inFlightRequests == 0)

        let response = try await slow.value
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "done")

        let refused = try await Curl.run(["\(base)/echo"])
        #expect(refused.exitCode == 7, "expected connection refused, curl exit \(refused.exitCode)")
        await server.shutdown()  // idempotent
    }

    @Test func shutdownGraceAnswersLeftoversWith503() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGrace = .milliseconds(100)
        let server = HTTPServer(configuration: configuration, responder: TestResponder())
        try server.start()
        let base = "http://127.0.0.1:\(server.port)"

        // curl gives up after 70 s; the request would take 60 s.
        let slow = Task {
            try await Curl.run(["--max-time", "70", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/slow?ms=60000"])
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while server.inFlightRequests == 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(server.inFlightRequests == 1)
        let start = clock.now
        await server.shutdown()
        // Far sooner than the 60 s request (the grace is 100 ms; a loaded machine adds seconds). A
        // shutdown that ignored the grace would wait out the request: more than 40 s from here
        // unless the poll above saw the request 20 s late.
        #expect(clock.now - start < .seconds(40))
        let result = try await slow.value
        // Either the 503 got out before the daemon stopped or the connection was closed.
        #expect(result.text == "503" || result.exitCode != 0)
    }

    @Test func startFailsWhenThePortIsTaken() async throws {
        try await withTestServer { server, _ in
            let second = HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: server.port),
                responder: TestResponder()
            )
            let error = #expect(throws: HTTPServerError.self) { try second.start() }
            #expect(error?.message.contains("in use") == true, "\(error?.message ?? "")")
        }
    }
}
