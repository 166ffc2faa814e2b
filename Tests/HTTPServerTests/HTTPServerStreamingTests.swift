import Foundation
import HTTPServer
import Testing

/// Streamed bodies (`HTTPBodyStream`) over a real socket: whole and in order, an error that ends
/// only its connection, a client that leaves early, and a slow client the server does not read
/// ahead of.
@Suite(.serialized) struct HTTPServerStreamingTests {
    @Test func aBodyOfManyPiecesArrivesWholeInOrderWithItsLength() async throws {
        let responder = TestResponder()
        try await withTestServer(responder: responder) { server, base in
            // Piece 7 empty: skipped, not taken for the end.
            let response = try await Curl.request(["\(base)/stream?pieces=40&size=100000&empty=7"])
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == "3900000")
            #expect(response.header("X-Request-Id") != nil)
            #expect(Array(response.body) == StreamProbe.body(pieces: 40, size: 100_000, empty: 7))
            #expect(await responder.probe.waitForEnd() == .finished)
            // With the length known the source is never asked past its last piece.
            #expect(responder.probe.piecesRequested == 40)
            #expect(responder.probe.endedCount == 1)
            #expect(await inFlightRequestsSettle(server))
        }
    }

    @Test func aBodyOfUnknownLengthIsSentChunked() async throws {
        let responder = TestResponder()
        try await withTestServer(responder: responder) { server, base in
            let response = try await Curl.request(["\(base)/stream?pieces=12&size=70000&length=no"])
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == nil)
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(Array(response.body) == StreamProbe.body(pieces: 12, size: 70_000))
            #expect(await responder.probe.waitForEnd() == .finished)
            // Keep-alive still works after a chunked stream.
            let again = try await Curl.run(["-w", "%{http_code} %{num_connects}\\n", "-o", "/dev/null",
                                            "\(base)/stream?pieces=3&size=10&length=no", "-o", "/dev/null", "\(base)/echo"])
            #expect(again.text == "200 1\n200 0\n")
            #expect(await inFlightRequestsSettle(server))
        }
    }

    @Test func anErrorMidStreamEndsTheConnectionNotTheServer() async throws {
        let responder = TestResponder()
        try await withTestServer(responder: responder) { server, base in
            let result = try await Curl.run(["-o", "-", "\(base)/stream?pieces=10&size=100000&fail=5"])
            // curl: "transfer closed with outstanding read data remaining".
            #expect(result.exitCode == 18, "curl exit \(result.exitCode)")
            #expect(Array(result.output) == StreamProbe.body(pieces: 5, size: 100_000))
            #expect(await responder.probe.waitForEnd() == .failed)

            let echo = try await Curl.request(["\(base)/echo"])
            #expect(echo.status == 200)
            #expect(await inFlightRequestsSettle(server))
        }
    }

    @Test func aClientThatLeavesEarlyReleasesTheSource() async throws {
        let responder = TestResponder()
        try await withTestServer(responder: responder) { server, _ in
            // 1 GiB if it were all sent.
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /stream?pieces=1024&size=1048576 HTTP/1.1\r\nHost: test\r\n\r\n")
            let (head, _) = try await connection.receiveHead()
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.contains("Content-Length: 1073741824"))
            connection.close()

            #expect(await responder.probe.waitForEnd() == .cancelled)
            #expect(responder.probe.piecesRequested < 64, "asked for \(responder.probe.piecesRequested) pieces")
            #expect(await inFlightRequestsSettle(server))
            // The server still answers.
            #expect(try await Curl.request(["http://127.0.0.1:\(server.port)/echo"]).status == 200)
        }
    }

    @Test func aSlowClientDoesNotMakeTheServerReadAhead() async throws {
        let responder = TestResponder()
        let pieceSize = 1 << 20
        let pieces = 24
        try await withTestServer(responder: responder) { server, _ in
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            try connection.send("GET /stream?pieces=\(pieces)&size=\(pieceSize) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            var (_, received) = try await connection.receiveHead()
            // What can be between the source and this client at any moment: the piece in hand,
            // MHD's block, the server's send buffer (the kernel's `tcp_wmem` maximum) and this
            // socket's pinned receive buffer. A server that read ahead would be further ahead.
            let sendBuffer = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8))
                .flatMap { $0.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } } ?? 4 << 20
            let slack = sendBuffer / pieceSize + 3
            try #require(slack < pieces / 2, "the kernel's send buffer is too large for this test")
            var worst = 0
            while true {
                worst = max(worst, responder.probe.piecesRequested - received.count / pieceSize)
                let bytes = try await connection.receive(max: 256 * 1024)
                if bytes.isEmpty { break }
                received += bytes
            }
            #expect(worst <= slack, "the server was \(worst) pieces ahead of the client")
            #expect(received == StreamProbe.body(pieces: pieces, size: pieceSize))
            #expect(await responder.probe.waitForEnd() == .finished)
        }
    }

    @Test func otherRequestsAreAnsweredWhileAStreamWaitsForItsSource() async throws {
        let gate = StreamGate()
        try await withTestServer(responder: TestResponder(gate: gate)) { server, base in
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            try connection.send("GET /stream?pieces=3&size=1000&gate=1 HTTP/1.1\r\nHost: test\r\n\r\n")
            var (head, received) = try await connection.receiveHead()
            #expect(head.hasPrefix("HTTP/1.1 200"))
            // The second piece waits on the gate: every MHD thread stays free for others.
            try await gate.waitUntilWaiting()
            for _ in 0..<4 {
                #expect(try await Curl.request(["\(base)/echo"]).status == 200)
            }
            gate.open()
            while received.count < 3000 {
                let bytes = try await connection.receive()
                if bytes.isEmpty { break }
                received += bytes
            }
            #expect(received == StreamProbe.body(pieces: 3, size: 1000))
        }
    }

    @Test func shutdownEndsAStreamWaitingForItsSource() async throws {
        let gate = StreamGate()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGrace = .milliseconds(100)
        let responder = TestResponder(gate: gate)
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        let connection = try RawConnection(port: server.port)
        defer { connection.close() }
        try connection.send("GET /stream?pieces=3&size=1000&gate=1 HTTP/1.1\r\nHost: test\r\n\r\n")
        _ = try await connection.receiveHead()
        try await gate.waitUntilWaiting()
        // MHD_stop_daemon would abort the process on a connection left suspended.
        await server.shutdown()
        #expect(await responder.probe.waitForEnd() == .cancelled)
        gate.open()
    }
}
