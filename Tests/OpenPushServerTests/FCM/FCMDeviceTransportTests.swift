import Crypto
import FCMSimulator
import OpenPushCore
@testable import OpenPushDelivery
import Testing

/// The FCM transport against the in-process FCM simulator: h2c sends with each app's access
/// token, each FCM answer classified into the outcome the engine records, the access token
/// cached and refetched after a `401`, and one app's refused credentials leaving another's
/// pushes alone.
@Suite struct FCMDeviceTransportTests {
    static func account(_ project: String) throws -> FCMServiceAccount {
        FCMServiceAccount(projectID: project, privateKeyID: "kid-\(project)", privateKey: try RSASigningKey.generatePEM(),
                          clientEmail: "firebase-adminsdk@\(project).iam.gserviceaccount.com")
    }

    /// A simulator that knows `known` (an account it does not know is refused at its token
    /// endpoint), and a transport pointed at it; both stopped afterwards.
    static func withTransport(knowing known: [FCMServiceAccount], settings: FCMDeviceTransport.Settings = .init(),
                              fcmURL: ((FCMSimulator) -> String)? = nil,
                              _ body: (FCMSimulator, FCMDeviceTransport) async throws -> Void) async throws {
        let simulator = try FCMSimulator(.init(serviceAccounts: known.map {
            .init(clientEmail: $0.clientEmail, privateKeyID: $0.privateKeyID, projectID: $0.projectID, privateKeyPEM: $0.privateKey)
        }))
        try simulator.start()
        var configuration = Configuration()
        configuration.fcmURL = fcmURL?(simulator) ?? simulator.endpoint
        configuration.fcmTokenURL = simulator.tokenURL
        let transport = FCMDeviceTransport(configuration: configuration, settings: settings)
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

    /// One push to send: its app, the app's service account and the device's token.
    struct Push {
        var app: String
        var account: FCMServiceAccount
        var token: String
    }

    /// A device batch of `.fcm` pushes, delivery ids 0, 1, … in order, and their messages.
    static func batch(_ pushes: [Push]) -> (PushBatch, [FCMMessage]) {
        var batch = PushBatch()
        var messages: [FCMMessage] = []
        for (index, push) in pushes.enumerated() {
            let message = FCMMessage(token: push.token, title: "Hello \(index)", body: "Body \(index)",
                                     fields: AndroidNotificationFields(data: ["order": .int(Int64(index))]),
                                     notificationID: "msg_\(index)", subscriptionID: "sub_\(index)")
            let delivery = ClaimedDelivery(id: Int64(index), apnsID: "6f1e2d3c-0000-8000-8000-\(String(100_000_000_000 + index))",
                                           messageID: "msg_\(index)", appID: push.app, subscriptionID: "sub_\(index)",
                                           liveActivityID: nil, tokenKind: .device, token: push.token, badge: nil,
                                           attempts: 1, createdAt: 1_800_000_000)
            batch.add(PushBatch.Planned(delivery: delivery, request: .fcm(body: message.serializedBytes)), fcmAccount: push.account)
            messages.append(message)
        }
        return (batch, messages)
    }

    static func send(_ pushes: [Push], through transport: FCMDeviceTransport,
                     lane: DeliveryLane = .bulk) async -> [PushOutcome.Answer?] {
        let (batch, _) = batch(pushes)
        return await transport.send(batch, recipients: pushes.count, lane: lane).map(answer)
    }

    static func answer(_ outcome: PushOutcome?) -> PushOutcome.Answer? {
        if case .answered(let answer)? = outcome { return answer }
        return nil
    }

    @Test func acceptedPushesCarryTheirMessageNameAndTheExactBody() async throws {
        let a = try Self.account("project-a"), b = try Self.account("project-b")
        try await Self.withTransport(knowing: [a, b]) { simulator, transport in
            let pushes = (0..<5).map { Push(app: $0 < 3 ? "app_a" : "app_b", account: $0 < 3 ? a : b, token: "device-token-\($0)") }
            let (batch, messages) = Self.batch(pushes)
            let outcomes = await transport.send(batch, recipients: pushes.count, lane: .bulk)
            #expect(outcomes.count == 5)
            for (index, push) in pushes.enumerated() {
                let answer = try #require(Self.answer(outcomes[index]))
                #expect(answer.status == 200 && answer.verdict == .accepted && answer.service == .fcm)
                let received = try #require(simulator.accepted { $0.token == push.token }.first)
                #expect(received.projectID == push.account.projectID && received.clientEmail == push.account.clientEmail)
                #expect(answer.messageName == received.name)
                #expect(answer.messageName?.hasPrefix("projects/\(push.account.projectID)/messages/") == true)
                #expect(JSONValue.object(received.message) == messages[index].json.objectValue?["message"])
            }
            // One exchange per service account.
            #expect(simulator.counters.tokenRequests == 2)
        }
    }

    @Test func manyPushesShareAFewMultiplexedConnections() async throws {
        let a = try Self.account("project-a"), b = try Self.account("project-b")
        try await Self.withTransport(knowing: [a, b]) { simulator, transport in
            let pushes = (0..<600).map { Push(app: $0 % 3 == 0 ? "app_b" : "app_a", account: $0 % 3 == 0 ? b : a, token: "device-\($0)") }
            let answers = await Self.send(pushes, through: transport)
            #expect(answers.allSatisfy { $0?.verdict == .accepted })
            #expect(simulator.accepted().count == 600)
            // The client's cap (8 by default); one connection per request would be 600.
            #expect((1...FCMDeviceTransport.Settings().maxConnections).contains(simulator.connectionsAccepted))
        }
    }

    @Test func deadTokensPermanentFailuresAndRetriesAreClassified() async throws {
        let a = try Self.account("project-a")
        try await Self.withTransport(knowing: [a]) { simulator, transport in
            simulator.unregister(token: "uninstalled")
            // A space: FCM's "not a valid FCM registration token".
            let answers = await Self.send([Push(app: "app_a", account: a, token: "uninstalled"),
                                           Push(app: "app_a", account: a, token: "not a token"),
                                           Push(app: "app_a", account: a, token: "alive")], through: transport)
            #expect(answers[0]?.status == 404 && answers[0]?.verdict == .deadToken(APNSReason("UNREGISTERED")))
            #expect(answers[1]?.status == 400 && answers[1]?.verdict == .deadToken(APNSReason("INVALID_ARGUMENT")))
            #expect(answers[2]?.verdict == .accepted)
            #expect(answers.allSatisfy { $0?.service == .fcm })

            simulator.injectFailure(.invalidArgument, count: 1)
            let invalid = try #require(await Self.send([Push(app: "app_a", account: a, token: "alive")], through: transport)[0])
            #expect(invalid.status == 400 && invalid.verdict == .permanent(APNSReason("INVALID_ARGUMENT")))
            #expect(invalid.detail?.isEmpty == false && invalid.service == .fcm)

            simulator.injectFailure(.quotaExceeded, count: 1, retryAfter: 30)
            let quota = try #require(await Self.send([Push(app: "app_a", account: a, token: "alive")], through: transport)[0])
            #expect(quota.status == 429 && quota.verdict == .retry(APNSReason("QUOTA_EXCEEDED")) && quota.retryAfter == 30)

            simulator.injectFailure(.unavailable, count: 1)
            let unavailable = try #require(await Self.send([Push(app: "app_a", account: a, token: "alive")], through: transport)[0])
            #expect(unavailable.status == 503 && unavailable.verdict == .retry(APNSReason("UNAVAILABLE")))
            #expect(unavailable.retryAfter == nil && unavailable.service == .fcm)
            #expect(simulator.accepted { $0.token == "alive" }.count == 1)
        }
    }

    @Test func accessTokensAreCachedAcrossBatchesAndFetchedAgainOnceAfterA401() async throws {
        let a = try Self.account("project-a")
        try await Self.withTransport(knowing: [a]) { simulator, transport in
            for round in 0..<3 {
                let answers = await Self.send((0..<4).map { Push(app: "app_a", account: a, token: "device-\(round)-\($0)") },
                                              through: transport)
                #expect(answers.allSatisfy { $0?.verdict == .accepted })
            }
            #expect(simulator.counters.tokenRequests == 1)

            // Every push of the next batch is refused with the revoked token: one new exchange for them all.
            #expect(simulator.revokeAccessTokens() == 1)
            let again = await Self.send((0..<4).map { Push(app: "app_a", account: a, token: "after-revoke-\($0)") }, through: transport)
            #expect(again.allSatisfy { $0?.verdict == .accepted && $0?.messageName != nil })
            #expect(simulator.counters.tokenRequests == 2)
            #expect(simulator.accepted().count == 16)

            // Refused with the fresh token too: the app's FCM credentials are at fault.
            simulator.injectFailure(.unauthenticated, count: 2)
            let refused = try #require(await Self.send([Push(app: "app_a", account: a, token: "device-x")], through: transport)[0])
            #expect(refused.status == 401 && refused.verdict == .credentials(APNSReason("UNAUTHENTICATED")) && refused.service == .fcm)
            #expect(simulator.counters.tokenRequests == 3)
        }
    }

    @Test func oneAppsRefusedServiceAccountLeavesTheOtherAppsPushesAlone() async throws {
        let a = try Self.account("project-a"), unknown = try Self.account("project-gone")
        try await Self.withTransport(knowing: [a]) { simulator, transport in
            let answers = await Self.send([Push(app: "app_gone", account: unknown, token: "device-1"),
                                           Push(app: "app_a", account: a, token: "device-2"),
                                           Push(app: "app_gone", account: unknown, token: "device-3"),
                                           Push(app: "app_a", account: a, token: "device-4")], through: transport)
            for index in [0, 2] {
                let answer = try #require(answers[index])
                guard case .credentials(let reason) = answer.verdict else {
                    Issue.record("expected a credentials verdict, got \(answer.verdict)")
                    continue
                }
                #expect(reason.rawValue.contains("refused") && reason.rawValue.contains("invalid_client") && answer.service == .fcm)
            }
            #expect(answers[1]?.verdict == .accepted && answers[3]?.verdict == .accepted)
            #expect(Set(simulator.accepted().map(\.token)) == ["device-2", "device-4"])
        }
    }

    @Test func aTokenEndpointThatIsDownIsRetriedNotAPause() async throws {
        let a = try Self.account("project-a")
        var configuration = Configuration()
        // Nothing listens on port 9 of the loopback (discard; refused).
        configuration.fcmURL = "http://127.0.0.1:9"
        configuration.fcmTokenURL = "http://127.0.0.1:9/token"
        let transport = FCMDeviceTransport(configuration: configuration)
        let (batch, _) = Self.batch([Push(app: "app_a", account: a, token: "device-1")])
        let outcomes = await transport.send(batch, recipients: 1, lane: .urgent)
        await transport.shutdown()
        guard case .unanswered(let reason, let permanent)? = outcomes[0] else {
            Issue.record("expected no answer, got \(String(describing: outcomes[0]))")
            return
        }
        #expect(!permanent && reason.hasPrefix("Transport: "))
    }
}
