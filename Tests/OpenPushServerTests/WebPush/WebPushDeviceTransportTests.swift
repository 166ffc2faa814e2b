import Crypto
import Foundation
import OpenPushCore
@testable import OpenPushDelivery
import Testing
import WebPushSimulator

/// The Web Push transport against the in-process push-service simulator: each answer of the
/// outcomes table classified, the request's headers exact, the VAPID JWT signed for the
/// endpoint's origin with the app's key, the payload decrypted by the simulator with the
/// subscription's keys, endpoints and peer addresses refused before anything is sent, and one
/// app's hung endpoint holding only that app's pushes.
@Suite struct WebPushDeviceTransportTests {
    /// A simulator, and a transport allowed to reach it over `http://` (private addresses
    /// allowed) unless `configure` says otherwise; both stopped afterwards.
    static func withTransport(settings: WebPushDeviceTransport.Settings = .init(),
                              configure: (inout Configuration, WebPushSimulator) -> Void = { _, _ in },
                              _ body: (WebPushSimulator, WebPushDeviceTransport) async throws -> Void) async throws {
        let simulator = WebPushSimulator()
        try simulator.start()
        var configuration = Configuration()
        configuration.webPushHosts = [.exact("127.0.0.1")]
        configuration.webhooksAllowPrivate = true
        configure(&configuration, simulator)
        let transport = WebPushDeviceTransport(configuration: configuration, settings: settings)
        do {
            try await body(simulator, transport)
        } catch {
            await transport.shutdown()
            await simulator.stop()
            throw error
        }
        await transport.shutdown()
        await simulator.stop()
    }

    static func vapidKey(subject: String = "mailto:ops@example.com") throws -> (WebPushVAPIDKey, P256KeyPair) {
        let pair = try P256KeyPair.generate()
        return (WebPushVAPIDKey(privateKeyPEM: try pair.privateKeyPEM(), publicKey: Base64URL.encode(pair.publicKey), subject: subject), pair)
    }

    /// One push: its app and key, and the request.
    struct Push {
        var app: String
        var key: WebPushVAPIDKey
        var request: WebPushRequest
    }

    /// A push to `path` of the simulator, registered there (so it decrypts) unless `subscribe` is false.
    static func push(_ path: String, app: String = "app_a", key: WebPushVAPIDKey, simulator: WebPushSimulator,
                     plaintext: String = #"{"title": "Hello"}"#, endpoint: String? = nil) throws -> Push {
        let subscription = try simulator.subscriptions().first { $0.path == path } ?? simulator.subscribe(path: path)
        return Push(app: app, key: key, request: WebPushRequest(
            endpoint: endpoint ?? simulator.endpoint(path: path), p256dh: subscription.p256dh, auth: subscription.auth,
            plaintext: Array(plaintext.utf8)))
    }

    /// A device batch of web pushes, delivery ids 0, 1, … in order.
    static func batch(_ pushes: [Push]) -> PushBatch {
        var batch = PushBatch()
        for (index, push) in pushes.enumerated() {
            let delivery = ClaimedDelivery(id: Int64(index), apnsID: "6f1e2d3c-0000-8000-8000-\(String(100_000_000_000 + index))",
                                           messageID: "msg_\(index)", appID: push.app, subscriptionID: "sub_\(index)",
                                           liveActivityID: nil, tokenKind: .device, token: push.request.endpoint, badge: nil,
                                           attempts: 1, createdAt: 1_800_000_000)
            batch.add(PushBatch.Planned(delivery: delivery, request: .webPush(push.request)), vapidKey: push.key)
        }
        return batch
    }

    static func send(_ pushes: [Push], through transport: WebPushDeviceTransport) async -> [PushOutcome?] {
        await transport.send(batch(pushes), recipients: pushes.count, lane: .bulk)
    }

    static func answer(_ outcome: PushOutcome?) -> PushOutcome.Answer? {
        if case .answered(let answer)? = outcome { return answer }
        return nil
    }

    @Test func eachAnswerOfThePushServiceIsClassified() async throws {
        try await Self.withTransport { simulator, transport in
            let (key, _) = try Self.vapidKey()
            let forced: [(String, WebPushSimulator.ForcedStatus?)] = [
                ("/push/ok", nil), ("/push/404", .notFound), ("/push/410", .gone), ("/push/400", .badRequest),
                ("/push/413", .payloadTooLarge), ("/push/429", .tooManyRequests), ("/push/500", .internalError),
                ("/push/503", .unavailable), ("/push/401", .unauthorized), ("/push/403", .forbidden),
            ]
            for (path, status) in forced {
                if let status { simulator.force(status, path: path, retryAfter: status == .tooManyRequests ? 30 : nil) }
            }
            let outcomes = await Self.send(try forced.map { try Self.push($0.0, key: key, simulator: simulator) }, through: transport)
            let answers = outcomes.map(Self.answer)
            #expect(answers.allSatisfy { $0?.service == .webPush })
            #expect(answers.map { $0?.status } == [201, 404, 410, 400, 413, 429, 500, 503, 401, 403])
            #expect(answers.map { $0?.verdict } == [
                .accepted, .deadToken(APNSReason("WebPushNotFound")), .deadToken(APNSReason("WebPushGone")),
                .permanent(APNSReason("WebPushBadRequest")), .permanent(APNSReason("WebPushPayloadTooLarge")),
                .retry(APNSReason("WebPushTooManyRequests")), .retry(APNSReason("WebPushServerError")),
                .retry(APNSReason("WebPushServerError")), .credentials(APNSReason("WebPushVAPIDRefused")),
                .credentials(APNSReason("WebPushVAPIDRefused")),
            ])
            #expect(answers[5]?.retryAfter == 30)
            #expect(simulator.counters.requests == 10)
        }
    }

    @Test func theRequestIsEncryptedForTheSubscriptionAndSignedForTheEndpointsOrigin() async throws {
        try await Self.withTransport { simulator, transport in
            let (key, pair) = try Self.vapidKey()
            var first = try Self.push("/push/one", key: key, simulator: simulator, plaintext: #"{"title": "One", "body": "é"}"#)
            first.request.ttl = 120
            first.request.urgency = .high
            first.request.topic = "news"
            let second = try Self.push("/push/two", key: key, simulator: simulator)
            let before = Int(Date().timeIntervalSince1970)
            let outcomes = await Self.send([first, second], through: transport)
            #expect(outcomes.allSatisfy { Self.answer($0)?.verdict == .accepted })
            let received = try #require(simulator.received { $0.path == "/push/one" }.first)
            #expect(received.plaintext == first.request.plaintext)
            #expect(received.headers["content-encoding"] == "aes128gcm")
            #expect(received.headers["content-type"] == "application/octet-stream")
            #expect(received.headers["ttl"] == "120" && received.headers["urgency"] == "high" && received.headers["topic"] == "news")
            let other = try #require(simulator.received { $0.path == "/push/two" }.first)
            #expect(other.plaintext == second.request.plaintext)
            #expect(other.headers["ttl"] == String(WebPushRequest.defaultTTL) && other.headers["urgency"] == "normal")
            #expect(other.headers["topic"] == nil)
            // One fresh key and salt per push: two bodies share neither.
            #expect(received.body?.prefix(16) != other.body?.prefix(16))
            #expect(received.body?[21..<86] != other.body?[21..<86])

            // The JWT, checked here apart from the simulator: the app's key, the origin, exp within 24 h.
            let authorization = try #require(received.headers["authorization"])
            #expect(other.headers["authorization"] == authorization)
            let parts = authorization.split(separator: " ", maxSplits: 1)
            #expect(parts.first == "vapid")
            let parameters = Dictionary(uniqueKeysWithValues: parts[1].split(separator: ",").map {
                let pair = $0.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                return (String(pair[0]), String(pair[1]))
            })
            #expect(parameters["k"] == key.publicKey)
            let token = try #require(parameters["t"]).split(separator: ".").map(String.init)
            #expect(token.count == 3)
            let signature = try #require(Base64URL.decode(token[2]))
            #expect(P256KeyPair.isValidES256Signature(signature, for: Array("\(token[0]).\(token[1])".utf8), publicKey: pair.publicKey))
            let headerBytes = try #require(Base64URL.decode(token[0]))
            let header = try JSONValue.parse(headerBytes).objectValue
            #expect(header?["alg"]?.stringValue == "ES256" && header?["typ"]?.stringValue == "JWT")
            let claimBytes = try #require(Base64URL.decode(token[1]))
            let claims = try #require(try JSONValue.parse(claimBytes).objectValue)
            #expect(claims["aud"]?.stringValue == simulator.origin)
            #expect(claims["sub"]?.stringValue == "mailto:ops@example.com")
            let expiry = try #require(claims["exp"]?.intValue)
            #expect(expiry > Int64(before) && expiry <= Int64(Int(Date().timeIntervalSince1970) + 86_400))
        }
    }

    @Test func anEndpointOffTheHostListIsRefusedWithoutSending() async throws {
        // A row stored while the simulator was allowed; the deployment now allows only the defaults.
        try await Self.withTransport(configure: { configuration, _ in configuration.webPushHosts = WebPushHostPattern.defaults }) {
            simulator, transport in
            let (key, _) = try Self.vapidKey()
            let outcomes = await Self.send([try Self.push("/push/one", key: key, simulator: simulator)], through: transport)
            guard case .unanswered(let reason, let permanent)? = outcomes[0] else {
                Issue.record("answered: \(String(describing: outcomes[0]))")
                return
            }
            #expect(permanent && reason.contains("127.0.0.1 is not a push service"))
            #expect(simulator.counters.requests == 0)
        }
    }

    /// One window's pushes share what they can (an origin's check, keys, the signed header, the
    /// header list), yet each is still checked and encrypted as its own: a push of the same
    /// origin with a space in its path, one of a host off the list, one with other keys and one
    /// with broken keys sit between pushes that go through, and each gets its own outcome.
    @Test func pushesOfOneWindowAreEachCheckedAndEncryptedForTheirOwnSubscription() async throws {
        try await Self.withTransport { simulator, transport in
            let (key, _) = try Self.vapidKey()
            let first = try Self.push("/push/one", key: key, simulator: simulator, plaintext: #"{"title": "one"}"#)
            let spaced = try Self.push("/push/two", key: key, simulator: simulator,
                                       endpoint: simulator.endpoint(path: "/push/two") + " x")
            let offList = try Self.push("/push/three", key: key, simulator: simulator,
                                        endpoint: simulator.endpoint(path: "/push/three").replacingOccurrences(of: "127.0.0.1", with: "localhost"))
            let otherKeys = try Self.push("/push/four", key: key, simulator: simulator, plaintext: #"{"title": "four"}"#)
            var broken = try Self.push("/push/five", key: key, simulator: simulator)
            broken.request.auth = "not+base64url"
            var later = try Self.push("/push/one", key: key, simulator: simulator, plaintext: #"{"title": "six"}"#)
            later.request.ttl = 60
            let pushes = [first, spaced, offList, otherKeys, broken, later]
            #expect(otherKeys.request.p256dh != first.request.p256dh)
            let outcomes = await Self.send(pushes, through: transport)
            #expect(outcomes.map { Self.answer($0)?.verdict } == [.accepted, nil, nil, .accepted, nil, .accepted])
            for (index, expected) in [(1, "refused endpoint"), (2, "localhost is not a push service"), (4, "not base64url")] {
                guard case .unanswered(let reason, let permanent)? = outcomes[index] else {
                    Issue.record("push \(index) answered: \(String(describing: outcomes[index]))")
                    continue
                }
                #expect(permanent && reason.contains(expected), "push \(index): \(reason)")
            }
            let received = simulator.received { _ in true }
            #expect(received.count == 3)
            #expect(Set(received.compactMap(\.plaintext)) == Set([first, otherKeys, later].map(\.request.plaintext)))
            let ttls = Dictionary(received.compactMap { push in push.plaintext.map { ($0, push.headers["ttl"]) } }, uniquingKeysWith: { $1 })
            #expect(ttls[later.request.plaintext] == "60")
            #expect(ttls[first.request.plaintext] == String(WebPushRequest.defaultTTL))
        }
    }

    @Test(arguments: [true, false])
    func aPrivatePeerAddressIsRefusedWhenPrivateIsNotAllowed(allowPrivate: Bool) async throws {
        let simulator = WebPushSimulator()
        try simulator.start()
        // The push service's name resolves to the simulator on loopback: a private answer.
        var settings = WebPushDeviceTransport.Settings()
        settings.pinnedAddresses = ["push.example.com:\(simulator.port):127.0.0.1"]
        var configuration = Configuration()
        configuration.webPushHosts = [.exact("push.example.com")]
        configuration.webhooksAllowPrivate = allowPrivate
        let transport = WebPushDeviceTransport(configuration: configuration, settings: settings)
        let (key, _) = try Self.vapidKey()
        // https:// unless private is allowed (then the simulator's own http://).
        let push = try Self.push("/push/one", key: key, simulator: simulator,
                                 endpoint: "\(allowPrivate ? "http" : "https")://push.example.com:\(simulator.port)/push/one")
        let outcome = await Self.send([push], through: transport)[0]
        await transport.shutdown()
        await simulator.stop()
        if allowPrivate {
            #expect(Self.answer(outcome)?.verdict == .accepted)
            #expect(simulator.counters.requests == 1)
        } else {
            guard case .unanswered(let reason, let permanent)? = outcome else {
                Issue.record("answered: \(String(describing: outcome))")
                return
            }
            #expect(permanent && reason.contains("refused address 127.0.0.1"))
            #expect(simulator.counters.requests == 0)
        }
    }

    @Test func oneAppsHungEndpointHoldsOnlyThatAppsPushes() async throws {
        var settings = WebPushDeviceTransport.Settings()
        settings.window = 1
        settings.appInFlight = 2
        try await Self.withTransport(settings: settings) { simulator, transport in
            let (keyA, _) = try Self.vapidKey(), (keyB, _) = try Self.vapidKey()
            simulator.hold(path: "/push/hung")
            let slow = try (0..<6).map { _ in try Self.push("/push/hung", app: "app_a", key: keyA, simulator: simulator) }
            let held = Task { await Self.send(slow, through: transport) }
            // app_a's cap: two requests reach the hung service, the other four wait in OpenPush.
            while simulator.waiting(path: "/push/hung") < 2 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(transport.inFlight(app: "app_a") == 2)
            let fast = try (0..<3).map { try Self.push("/push/fast-\($0)", app: "app_b", key: keyB, simulator: simulator) }
            let outcomes = await Self.send(fast, through: transport)
            #expect(outcomes.allSatisfy { Self.answer($0)?.verdict == .accepted })
            #expect(simulator.waiting(path: "/push/hung") == 2)
            simulator.release(path: "/push/hung")
            #expect(await held.value.allSatisfy { Self.answer($0)?.verdict == .accepted })
            #expect(simulator.received { $0.path == "/push/hung" }.count == 6)
        }
    }
}
