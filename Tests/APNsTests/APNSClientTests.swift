import Foundation
import Testing
@testable import APNs
import APNsSimulator
import Crypto
import OpenPushCore
import Synchronization

/// End to end over real sockets against `H2TestServer` (h2c unless stated).
@Suite struct APNSClientTests {
    @Test func sendsThePushAsAPNsExpectsIt() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let credential = try APNSTestSupport.credential()
        var request = APNSTestSupport.push(token: APNSTestSupport.token("a", 1), apnsID: "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60")
        request.request.headers.collapseID = "order-58213"

        let response = try await client.send(request, credential: credential, environment: .sandbox)
        await client.shutdown()

        #expect(response == APNSResponse(status: 200, apnsID: "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60"))
        let seen = try #require(server.snapshot().requests.first)
        #expect(seen.value(":method") == "POST")
        #expect(seen.value(":scheme") == "http")
        #expect(seen.value(":authority") == "127.0.0.1:\(server.port)")
        #expect(seen.value(":path") == "/3/device/\(request.deviceToken)")
        #expect(seen.value("apns-push-type") == "liveactivity")
        #expect(seen.value("apns-topic") == "com.example.app.push-type.liveactivity")
        #expect(seen.value("apns-priority") == "5")
        #expect(seen.value("apns-expiration") == "1764574800")
        #expect(seen.value("apns-id") == "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60")
        #expect(seen.value("apns-collapse-id") == "order-58213")
        // The body is the request's bytes as built, not serialised again.
        #expect(seen.body == request.request.payloadBytes)

        // The bearer token is a JWT of this credential that verifies.
        let jwt = try #require(seen.value("authorization")?.dropFirst("bearer ".count)).split(separator: ".").map(String.init)
        try #require(jwt.count == 3)
        #expect(try JSONValue.parse(#require(TestBase64URL.decode(jwt[0]))) == ["alg": "ES256", "kid": "KEY1234567"])
        #expect(try JSONValue.parse(#require(TestBase64URL.decode(jwt[1]))).objectValue?["iss"] == "TEAM123456")
        #expect(try TestKeys.verifyES256(
            rawSignature: #require(TestBase64URL.decode(jwt[2])), message: Array((jwt[0] + "." + jwt[1]).utf8),
            publicKeyDER: #require(credential.providerKey).signingKey.publicKeyDER))
    }

    @Test func aRejectionIsAResultWithItsReason() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let credential = try APNSTestSupport.credential()

        let bad = try await client.send(
            APNSTestSupport.push(token: APNSTestSupport.token("bad"), apnsID: "11111111-1111-1111-1111-111111111111"),
            credential: credential, environment: .production)
        let dead = try await client.send(
            APNSTestSupport.push(token: APNSTestSupport.token("dead")), credential: credential, environment: .production)
        await client.shutdown()

        #expect(bad == APNSResponse(status: 400, apnsID: "11111111-1111-1111-1111-111111111111", reason: .badDeviceToken))
        #expect(bad.reason?.isTokenDead == true)
        #expect(dead.status == 410)
        #expect(dead.reason == .unregistered)
        #expect(dead.timestamp == 1_764_488_400_000)
        #expect(dead.reason?.isPermanent == true)
    }

    @Test func aBatchMixesOutcomesInOrder() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, connections: 2)
        let requests = (0..<300).map { index in
            APNSTestSupport.push(token: APNSTestSupport.token(["a", "bad", "dead"][index % 3], index))
        }
        let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()

        #expect(results.count == 300)
        for (index, result) in results.enumerated() {
            let response = try result.get()
            #expect(response.status == [200, 400, 410][index % 3])
            #expect(response.apnsID == requests[index].request.headers.apnsID)
        }
    }

    @Test func goAwayMidBatchLosesNothing() async throws {
        let answered = Tally<String>()
        // The first connection answers 40 requests, then GOAWAY: everything above is retried.
        let server = H2TestServer { request in
            let reply = APNSTestSupport.reply(to: request)
            if request.connection == 0, request.streamID == 79 {
                answered.add(request.value("apns-id")!)
                return .respondThenGoAway(status: 200, headers: [("apns-id", request.value("apns-id")!)])
            }
            answered.add(request.value("apns-id")!)
            return reply
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, connections: 1)
        let requests = (0..<1000).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }
        let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .sandbox)
        let opened = client.connectionsOpened
        await client.shutdown()

        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(zip(results, requests).allSatisfy { (try? $0.0.get().apnsID) == $0.1.request.headers.apnsID })
        // Every push processed exactly once: the refused ones only on the new connection.
        let counts = answered.snapshot
        #expect(counts.count == 1000)
        #expect(counts.values.allSatisfy { $0 == 1 })
        let records = server.snapshot()
        #expect(records.connections >= 2)
        #expect(opened >= 2)
        // More streams began on the first connection than it answered: those were refused.
        #expect(records.requests.filter { $0.connection == 0 }.count == 40)
        #expect((records.concurrency[0]?.count ?? 0) > 40)
    }

    @Test func followsMaxConcurrentStreamsOneThenMore() async throws {
        var options = H2TestServer.Options()
        options.maxConcurrentStreams = 1
        options.raiseLimitAfterFirstResponse = 32
        let server = H2TestServer(options: options, handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, connections: 1)
        let requests = (0..<400).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }
        let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()

        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        let samples = try #require(server.snapshot().concurrency[0])
        #expect(samples.count == 400)
        #expect(samples.allSatisfy { $0.open <= Int($0.limit) })
        #expect(samples.filter { $0.limit == 1 }.allSatisfy { $0.open == 1 })
        let peak = samples.map(\.open).max() ?? 0
        #expect(peak > 1 && peak <= 32)
    }

    @Test func manyConcurrentRequestsComplete() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, connections: 2)
        let credential = try APNSTestSupport.credential()
        let batch = (0..<2000).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }

        async let batchResults = client.send(batch, credential: credential, environment: .sandbox)
        let single = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try await client.send(
                        APNSTestSupport.push(token: APNSTestSupport.token("b", index)), credential: credential,
                        environment: .sandbox
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let results = await batchResults
        let metrics = client.metrics
        await client.shutdown()

        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(single.count == 500 && single.allSatisfy { $0 == 200 })
        #expect(metrics.inFlightStreams == 0)
        #expect(metrics.queuedRequests == 0)
        #expect(metrics.openConnections == 2)
        let records = server.snapshot()
        #expect(records.requests.count == 2500)
        // Spread over both connections, each within the server's limit of 100.
        #expect(records.connections == 2)
        #expect(records.concurrency.values.allSatisfy { $0.allSatisfy { $0.open <= 100 } })
        #expect(client.metrics.openConnections == 0)
    }

    @Test func expiredProviderTokenIsRenewedOnceAndRetried() async throws {
        let start = 1_800_000_000.0
        let clock = ManualClock(start)
        let rejectBefore = Mutex<Int64>(Int64(start) + 1)
        let server = H2TestServer { request in
            let iat = APNSTestSupport.issuedAt(request) ?? 0
            if iat < rejectBefore.withLock({ $0 }) {
                return .respond(status: 403, headers: [("apns-id", request.value("apns-id")!)],
                                body: Array(#"{"reason":"ExpiredProviderToken"}"#.utf8))
            }
            return APNSTestSupport.reply(to: request)
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, clock: { clock.now() })
        let credential = try APNSTestSupport.credential()
        let push = APNSTestSupport.push(token: APNSTestSupport.token("a"))

        // A token younger than 20 minutes is not renewed: the rejection is the answer.
        let tooSoon = try await client.send(push, credential: credential, environment: .sandbox)
        #expect(tooSoon.status == 403 && tooSoon.reason == .expiredProviderToken)
        #expect(server.snapshot().requests.count == 1)

        // 25 minutes on: renewed, and the same push goes out again with the new token.
        clock.advance(25 * 60)
        let renewed = try await client.send(push, credential: credential, environment: .sandbox)
        #expect(renewed.status == 200)
        var requests = server.snapshot().requests
        #expect(requests.count == 3)
        let issued: [Int64?] = requests.map { APNSTestSupport.issuedAt($0) }
        let expected: [Int64?] = [Int64(start), Int64(start), Int64(start) + 25 * 60]
        #expect(issued == expected)
        #expect(Set(requests.map { $0.value("apns-id") }).count == 1)

        // Retried once only: if the new token is rejected too, that is the answer.
        rejectBefore.withLock { $0 = .max }
        clock.advance(25 * 60)
        let twice = try await client.send(push, credential: credential, environment: .sandbox)
        #expect(twice.reason == .expiredProviderToken)
        requests = server.snapshot().requests
        #expect(requests.count == 5)
        #expect(APNSTestSupport.issuedAt(requests[4]) == Int64(start) + 50 * 60)
        await client.shutdown()
    }

    @Test func aResetStreamIsRetried() async throws {
        let attempts = Tally<String>()
        let server = H2TestServer { request in
            if request.deviceToken.hasPrefix("f"), attempts.add(request.deviceToken) == 1 {
                return .reset(errorCode: 0x2)  // INTERNAL_ERROR
            }
            return APNSTestSupport.reply(to: request)
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let requests = (0..<20).map { APNSTestSupport.push(token: APNSTestSupport.token($0 % 2 == 0 ? "f" : "a", $0)) }
        let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(attempts.snapshot.values.allSatisfy { $0 == 2 })
        #expect(server.snapshot().connections == 1)  // a reset does not cost the connection
    }

    @Test func aStreamResetEveryTimeBecomesATransportError() async throws {
        let server = H2TestServer { _ in .reset(errorCode: 0x2) }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let error = await #expect(throws: APNSTransportError.self) {
            try await client.send(
                APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: try APNSTestSupport.credential(),
                environment: .sandbox)
        }
        await client.shutdown()
        #expect(error?.kind == .connectionLost)
        #expect(server.snapshot().requests.count == 3)  // the first try and two retries
    }

    @Test func aDroppedConnectionIsRetriedOnANewOne() async throws {
        let server = H2TestServer { request in
            if request.connection == 0, request.deviceToken.hasPrefix("d") { return .dropConnection }
            return APNSTestSupport.reply(to: request)
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let requests = (0..<50).map { APNSTestSupport.push(token: APNSTestSupport.token($0 == 10 ? "d" : "a", $0)) }
        let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(server.snapshot().connections == 2)
    }

    @Test func noServerIsAConnectError() async throws {
        // A port bound but not listening: connecting is refused, and no other test can take it.
        let (descriptor, port) = Self.boundPort()
        defer { close(descriptor) }
        // A refused connection fails the push at once, not when the request times out (120 s here,
        // so a loaded machine cannot blur the two).
        let client = try APNSTestSupport.client("http://127.0.0.1:\(port)", connections: 2, requestTimeout: 120)
        let started = Date()
        let error = await #expect(throws: APNSTransportError.self) {
            try await client.send(
                APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: try APNSTestSupport.credential(),
                environment: .sandbox)
        }
        await client.shutdown()
        #expect(error?.kind == .connectFailed)
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test func anUnansweredRequestTimesOutAndFreesItsStream() async throws {
        var options = H2TestServer.Options()
        options.maxConcurrentStreams = 1
        let server = H2TestServer(options: options) { request in
            request.deviceToken.hasPrefix("5") ? .ignore : APNSTestSupport.reply(to: request)
        }
        defer { server.stop() }
        // The timeout also bounds the follow-up push, which a loaded machine can delay past half a
        // second; 3 s still fails it if the ignored stream was never reset (it would wait for good).
        let client = try APNSTestSupport.client(server.url, requestTimeout: 3)
        let credential = try APNSTestSupport.credential()
        let error = await #expect(throws: APNSTransportError.self) {
            try await client.send(APNSTestSupport.push(token: APNSTestSupport.token("5")), credential: credential,
                                  environment: .sandbox)
        }
        #expect(error?.kind == .timeout)
        // The one stream the server allows was reset, so the next push gets through.
        let next = try await client.send(
            APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: credential, environment: .sandbox)
        await client.shutdown()
        #expect(next.status == 200)
    }

    /// A request that waited for a stream is given the whole request timeout from its write:
    /// timed out in flight, the server may well answer it, and the caller sends it again.
    @Test func aRequestThatWaitedForAStreamHasTheWholeTimeoutOnceSent() async throws {
        // One stream; each answer 2 s late. The second push waits 2 s for the stream, then needs
        // 2 s more: 4 s from its queueing, past the 3 s timeout, but 2 s from its write.
        let simulator = try APNSSimulator(.init(acceptAnyToken: true, maxConcurrentStreams: 1, slowDelay: .seconds(2)))
        try simulator.start()
        defer { simulator.stop() }
        let client = try APNSTestSupport.client(simulator.endpoint, requestTimeout: 3)
        let pushes = [APNSTestSupport.push(token: APNSTestSupport.token("5105", 1)),
                      APNSTestSupport.push(token: APNSTestSupport.token("5105", 2))]
        let results = await client.send(pushes, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()
        #expect(results.map { (try? $0.get())?.status } == [200, 200])
        #expect(simulator.acceptedCount == 2)
    }

    @Test func shutdownFailsWhatIsPendingAndLaterSends() async throws {
        let server = H2TestServer { _ in .ignore }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let credential = try APNSTestSupport.credential()
        let pending = try await APNSTestSupport.pushInFlight(client, server: server, credential: credential)
        await client.shutdown()
        let results = await pending.value
        #expect(throws: APNSTransportError(.shutdown, "the APNs client is shut down")) { try results[0].get() }
        let later = await client.send([APNSTestSupport.push(token: APNSTestSupport.token("a"))], credential: credential,
                                      environment: .sandbox)
        #expect((try? later[0].get()) == nil)
    }

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

/// A header value a peer would treat as malformed never reaches the connection: that push alone
/// fails (`invalid_header`), and the other pushes on the shared connection go on.
@Suite struct APNSClientHeaderGuardTests {
    @Test func aControlCharacterInAHeaderFailsThatPushAloneWithoutReconnecting() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let credential = try APNSTestSupport.credential()
        var pushes = (0..<5).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }
        pushes[1].request.headers.collapseID = "order\r\n58213"
        pushes[3].request.headers.topic = "com.example.app\u{7F}"
        let results = await client.send(pushes, credential: credential, environment: .sandbox)
        // Another push after them still goes out on the same connection.
        let after = try await client.send(APNSTestSupport.push(token: APNSTestSupport.token("a", 9)),
                                          credential: credential, environment: .sandbox)
        let opened = client.connectionsOpened
        await client.shutdown()

        for index in [0, 2, 4] { #expect((try? results[index].get())?.status == 200) }
        for (index, field) in [(1, "apns-collapse-id"), (3, "apns-topic")] {
            guard case .failure(let error) = results[index] else {
                Issue.record("push \(index) was sent")
                continue
            }
            #expect(error.kind == .invalidHeader)
            #expect(error.message.hasPrefix(field + ":"))
        }
        #expect(after.status == 200)
        #expect(opened == 1)
        #expect(server.snapshot().requests.count == 4)
    }

    @Test func aSinglePushAndABroadcastAreRefusedTheSameWay() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let credential = try APNSTestSupport.credential()
        var push = APNSTestSupport.push(token: APNSTestSupport.token("a"))
        push.request.headers.collapseID = "caf\u{E9}"
        await #expect(throws: APNSPendingRequest.unsendable("apns-collapse-id")) {
            try await client.send(push, credential: credential, environment: .sandbox)
        }
        let broadcast = APNSBroadcastRequest(bundleID: "com.example app", channelID: "dHN0LTNLZXk=", priority: 10,
                                             expiration: 0, requestID: "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60",
                                             payload: ["aps": ["event": "update"]])
        await #expect(throws: APNSPendingRequest.unsendable(":path")) {
            try await client.broadcast(broadcast, credential: credential, environment: .sandbox)
        }
        await client.shutdown()
        #expect(server.snapshot().requests.isEmpty)
    }

    @Test func spacesAroundACollapseIDAreNoPartOfIt() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        var push = APNSTestSupport.push(token: APNSTestSupport.token("a"))
        push.request.headers.collapseID = "  order 58213 "
        let response = try await client.send(push, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()
        #expect(response.status == 200)
        #expect(server.snapshot().requests.first?.value("apns-collapse-id") == "order 58213")
    }
}
