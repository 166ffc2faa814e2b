import Crypto
import Foundation
import HTTP2
import OpenPushCore
import Synchronization
import Testing
import APNsSimulator

/// The simulator over real sockets, driven by `HTTP2ClientSession`.
@Suite struct APNSSimulatorTests {
    typealias Client = APNSSimulatorTestClient
    typealias Fixtures = APNSSimulatorFixtures

    private func withSimulator<T>(
        _ configuration: APNSSimulator.Configuration = .init(acceptAnyToken: true),
        _ body: (APNSSimulator) async throws -> T
    ) async throws -> T {
        let simulator = try APNSSimulator(configuration)
        try simulator.start()
        defer { simulator.stop() }
        return try await body(simulator)
    }

    private func reason(_ body: [UInt8]) -> String? {
        (try? JSONValue.parse(body))?.objectValue?["reason"]?.stringValue
    }

    private func header(_ name: String, _ headers: [HTTP2Header]) -> String? {
        headers.first { $0.name == name }?.value
    }

    @Test func acceptedPushIsRecordedAndItsApnsIDEchoed() async throws {
        try await withSimulator { simulator in
            let apnsID = "8F1B0A2C-0000-4C1F-9E2E-1D7A3B5C6D7E"
            let token = Fixtures.deviceToken("0123")
            let headers = Fixtures.pushHeaders(["apns-id": apnsID, "apns-collapse-id": "task-1", "apns-expiration": "0"])
            let outcome = try await Client.send([.init(token: token, headers: headers, body: Fixtures.alertPayload)], port: simulator.port)
            let response = try #require(outcome.responses[Client.streamID(0)])
            #expect(response.status == 200)
            #expect(header("apns-id", response.headers) == apnsID)
            #expect(response.body.isEmpty)

            let push = try #require(simulator.accepted().first)
            #expect(simulator.accepted().count == 1)
            #expect(push.deviceToken == token)
            #expect(push.apnsID == apnsID)
            #expect(push.header("apns-topic") == "com.example.app")
            #expect(push.header("apns-push-type") == "alert")
            #expect(push.header("apns-collapse-id") == "task-1")
            #expect(push.payloadJSON == (try JSONValue.parse(Fixtures.alertPayload)))
            #expect(abs(push.receivedAt.timeIntervalSinceNow) < 60)
            let json = push.json.objectValue
            #expect(json?["token"]?.stringValue == token)
            #expect(json?["headers"]?.objectValue?["apns-topic"]?.stringValue == "com.example.app")
            #expect(json?["payload"] == push.payloadJSON)
        }
    }

    @Test func anApnsIDIsMadeUpWhenTheRequestHasNone() async throws {
        try await withSimulator { simulator in
            let pushes = [
                Client.Push(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload),
                Client.Push(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-priority": "2"]), body: Fixtures.alertPayload),
            ]
            let responses = try await Client.send(pushes, port: simulator.port).responses
            let ids = [0, 1].compactMap { responses[Client.streamID($0)].flatMap { header("apns-id", $0.headers) } }
            #expect(ids.count == 2)
            #expect(Set(ids).count == 2)
            #expect(ids.allSatisfy { UUID(uuidString: $0) != nil })
            #expect(responses[Client.streamID(1)]?.status == 400)
            #expect(simulator.accepted().map(\.apnsID) == [ids[0]])
        }
    }

    @Test func rejectionsCarryStatusReasonAndApnsID() async throws {
        let apnsID = "0b5c6d7e-0000-4c1f-9e2e-1d7a3b5c6d7e"
        let cases: [(Client.Push, Int, String)] = [
            (.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-topic": nil, "apns-id": apnsID]), body: Fixtures.alertPayload), 400, "MissingTopic"),
            (.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-push-type": "liveactivity", "apns-id": apnsID]), body: Fixtures.alertPayload), 400, "InvalidPushType"),
            (.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-priority": "9", "apns-id": apnsID]), body: Fixtures.alertPayload), 400, "BadPriority"),
            (.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-collapse-id": String(repeating: "x", count: 65), "apns-id": apnsID]), body: Fixtures.alertPayload), 400, "BadCollapseId"),
            (.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-id": apnsID]), body: Array(repeating: 0x20, count: 4097)), 413, "PayloadTooLarge"),
            (.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(["apns-id": apnsID]), body: []), 400, "PayloadEmpty"),
            (.init(token: "nothex", headers: Fixtures.pushHeaders(["apns-id": apnsID]), body: Fixtures.alertPayload), 400, "BadDeviceToken"),
            (.init(token: "", headers: Fixtures.pushHeaders(["apns-id": apnsID]), body: [], method: "GET", path: "/3/device/\(Fixtures.deviceToken())"), 405, "MethodNotAllowed"),
            (.init(token: "", headers: Fixtures.pushHeaders(["apns-id": apnsID]), body: Fixtures.alertPayload, path: "/2/device/abc"), 404, "BadPath"),
        ]
        try await withSimulator { simulator in
            let responses = try await Client.send(cases.map(\.0), port: simulator.port).responses
            for (index, (_, status, expectedReason)) in cases.enumerated() {
                let response = try #require(responses[Client.streamID(index)])
                #expect(response.status == status, "\(expectedReason)")
                #expect(reason(response.body) == expectedReason)
                #expect(header("apns-id", response.headers) == apnsID)
            }
            #expect(simulator.accepted().isEmpty)
        }
    }

    @Test func providerTokensAreCheckedOverTheWire() async throws {
        let provider = try APNSSimulatorTestProvider()
        let clock = Mutex(Date())
        let configuration = APNSSimulator.Configuration(
            providerKeys: [provider.keyID: provider.key.publicKeyDER], now: { clock.withLock { $0 } })
        try await withSimulator(configuration) { simulator in
            let now = Date()
            let tokens: [(String?, Int, String?)] = [
                (try provider.token(issuedAt: now), 200, nil),
                (try provider.token(issuedAt: now.addingTimeInterval(-7200)), 403, "ExpiredProviderToken"),
                (try provider.token(issuedAt: now, keyID: "OTHERKEYID"), 403, "InvalidProviderToken"),
                (try APNSSimulatorTestProvider().token(issuedAt: now), 403, "InvalidProviderToken"),
                (nil, 403, "MissingProviderToken"),
            ]
            let pushes = tokens.map {
                Client.Push(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(authorization: $0.0), body: Fixtures.alertPayload)
            }
            let responses = try await Client.send(pushes, port: simulator.port).responses
            for (index, (_, status, expected)) in tokens.enumerated() {
                #expect(responses[Client.streamID(index)]?.status == status)
                #expect(responses[Client.streamID(index)].flatMap { reason($0.body) } == expected)
            }
            // The same token an hour and a bit later has expired.
            clock.withLock { $0 = now.addingTimeInterval(3700) }
            let later = try await Client.send([pushes[0]], port: simulator.port).responses
            #expect(later[Client.streamID(0)].flatMap { reason($0.body) } == "ExpiredProviderToken")
        }
    }

    @Test func tokenPrefixesChooseTheAnswer() async throws {
        try await withSimulator { simulator in
            let prefixes: [(String, Int, String?)] = [
                ("dead", 410, "Unregistered"), ("bad0", 400, "BadDeviceToken"), ("4290", 429, "TooManyRequests"),
                ("5000", 500, "InternalServerError"), ("5030", 503, "ServiceUnavailable"), ("abcd", 200, nil),
            ]
            let pushes = prefixes.map {
                Client.Push(token: Fixtures.deviceToken($0.0), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
            }
            let before = Date()
            let responses = try await Client.send(pushes, port: simulator.port).responses
            for (index, (_, status, expected)) in prefixes.enumerated() {
                let response = try #require(responses[Client.streamID(index)])
                #expect(response.status == status)
                #expect(reason(response.body) == expected)
                #expect(header("apns-id", response.headers) != nil)
            }
            let gone = try #require(try JSONValue.parse(responses[Client.streamID(0)]!.body).objectValue)
            let timestamp = try #require(gone["timestamp"]?.intValue)
            #expect(abs(Double(timestamp) / 1000 - before.timeIntervalSince1970) < 60)
            #expect(simulator.accepted().map(\.deviceToken) == [Fixtures.deviceToken("abcd")])
        }
    }

    @Test func slowTokensAnswerLaterWithoutHoldingUpOthers() async throws {
        try await withSimulator(.init(acceptAnyToken: true, slowDelay: .milliseconds(400))) { simulator in
            let pushes = [
                Client.Push(token: Fixtures.deviceToken("5105"), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload),
                Client.Push(token: Fixtures.deviceToken("abcd"), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload),
            ]
            let start = ContinuousClock.now
            let outcome = try await Client.send(pushes, port: simulator.port)
            #expect(ContinuousClock.now - start >= .milliseconds(400))
            let order = outcome.events.compactMap { event -> Int32? in
                if case .response(let streamID, 200, _, _) = event { return streamID }
                return nil
            }
            #expect(order == [Client.streamID(1), Client.streamID(0)])
            #expect(simulator.accepted().map(\.deviceToken) == [Fixtures.deviceToken("abcd"), Fixtures.deviceToken("5105")])
        }
    }

    @Test func behavioursCanBeProgrammedAndReset() async throws {
        try await withSimulator { simulator in
            let token = Fixtures.deviceToken("feed")
            let push = Client.Push(token: token, headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
            simulator.setBehaviour(.init(status: 410, reason: "ExpiredToken"), forTokenPrefix: "FEED")
            simulator.setBehaviour(.accept, forTokenPrefix: "dead")
            let dead = Client.Push(token: Fixtures.deviceToken("dead"), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
            let first = try await Client.send([push, dead], port: simulator.port).responses
            #expect(first[Client.streamID(0)].map { ($0.status, reason($0.body)) } ?? (0, nil) == (410, "ExpiredToken"))
            #expect(first[Client.streamID(1)]?.status == 200)

            simulator.reset()
            #expect(simulator.accepted().isEmpty)
            let second = try await Client.send([push, dead], port: simulator.port).responses
            #expect(second[Client.streamID(0)]?.status == 200)
            #expect(second[Client.streamID(1)]?.status == 410)
        }
    }

    @Test func goAwayAfterNStreamsRefusesTheRest() async throws {
        try await withSimulator { simulator in
            simulator.goAway(afterStreams: 2)
            let pushes = (0..<5).map {
                Client.Push(token: Fixtures.deviceToken(String(format: "%04d", $0)), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
            }
            let outcome = try await Client.send(pushes, port: simulator.port)
            #expect(outcome.events.contains(.goAway(lastStreamID: Client.streamID(1), errorCode: 0)))
            #expect(Set(outcome.responses.keys) == [Client.streamID(0), Client.streamID(1)])
            for index in 2..<5 {
                #expect(outcome.events.contains(.streamReset(streamID: Client.streamID(index), errorCode: 7)))  // REFUSED_STREAM
            }
            #expect(simulator.accepted().map(\.deviceToken) == pushes.prefix(2).map(\.token))

            // A new connection gets its own count; turned off, nothing is refused.
            simulator.goAway(afterStreams: nil)
            let again = try await Client.send(Array(pushes.suffix(3)), port: simulator.port)
            #expect(again.responses.count == 3)
            #expect(simulator.accepted().count == 5)
        }
    }

    @Test func tlsHandshakeNegotiatesH2WithTheWrittenCertificate() async throws {
        try await Fixtures.withTemporaryPath("apns-sim.pem") { certificatePath in
            try await withSimulator(.init(transport: .tls(certificatePath: certificatePath), acceptAnyToken: true)) { simulator in
                let written = try String(contentsOfFile: certificatePath, encoding: .utf8)
                #expect(written == simulator.certificatePEM)
                #expect(written.hasPrefix("-----BEGIN CERTIFICATE-----"))
                #expect(simulator.endpoint == "https://localhost:\(simulator.port)")
                for hostname in ["localhost", "127.0.0.1"] {
                    let outcome = try await Client.send(
                        [.init(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)],
                        port: simulator.port, caFile: certificatePath, hostname: hostname)
                    #expect(outcome.negotiatedALPN == "h2")
                    #expect(outcome.responses[Client.streamID(0)]?.status == 200)
                }
                #expect(simulator.accepted().count == 2)
            }
        }
    }

    @Test func manyStreamsOnOneConnection() async throws {
        try await withSimulator { simulator in
            let pushes = (0..<2000).map {
                Client.Push(token: Fixtures.deviceToken(String(format: "%06x", $0)), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
            }
            let responses = try await Client.send(pushes, port: simulator.port).responses
            #expect(responses.count == 2000)
            #expect(responses.values.allSatisfy { $0.status == 200 })
            #expect(Set(simulator.accepted().map(\.deviceToken)) == Set(pushes.map(\.token)))
        }
    }

    @Test func streamsRampUpAfterTheFirstAuthorisedRequest() async throws {
        try await withSimulator(.init(acceptAnyToken: true, maxConcurrentStreams: 500, rampsUpStreams: true)) { simulator in
            let pushes = (0..<3).map { _ in
                Client.Push(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
            }
            let outcome = try await Client.send(pushes, port: simulator.port)
            let limits = outcome.events.compactMap { event -> UInt32? in
                if case .settingsChanged(let limit) = event { return limit }
                return nil
            }
            #expect(limits == [1, 500])
            // Sent before the client saw the limit of 1: the first is answered, the others
            // refused, as APNs does to a client that ignores SETTINGS_MAX_CONCURRENT_STREAMS.
            #expect(outcome.responses[Client.streamID(0)]?.status == 200)
            for index in 1..<3 {
                #expect(outcome.events.contains(.streamReset(streamID: Client.streamID(index), errorCode: 7)))
            }
        }
    }

    @Test func stopEndsOpenConnectionsAndThePortCloses() async throws {
        // A loopback address of its own: the other suites' simulators listen on 127.0.0.1, and
        // one of them may be given this port the moment it is freed.
        let address = "127.0.0.61"
        let simulator = try APNSSimulator(.init(host: address, acceptAnyToken: true))
        try simulator.start()
        let port = simulator.port
        #expect(port != 0)
        #expect(simulator.endpoint == "http://\(address):\(port)")
        let push = Client.Push(token: Fixtures.deviceToken(), headers: Fixtures.pushHeaders(), body: Fixtures.alertPayload)
        #expect(try await Client.send([push], port: port, address: address).responses[Client.streamID(0)]?.status == 200)
        simulator.stop()
        await #expect(throws: (any Error).self) {
            _ = try await Client.send([push], port: port, address: address)
        }
        #expect(simulator.accepted().count == 1)
    }
}
