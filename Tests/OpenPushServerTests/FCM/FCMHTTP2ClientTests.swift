import FCMSimulator
import OpenPushCore
@testable import OpenPushDelivery
import Testing

/// The FCM transport's HTTP/2 client (the APNs client's event loops, h2c here) against the
/// in-process FCM simulator: its connection count, what an unreachable FCM or a shut-down
/// transport answers, and the FCM URL split into the client's endpoint and a path.
@Suite struct FCMHTTP2ClientTests {
    typealias Push = FCMDeviceTransportTests.Push

    @Test func twoAppsPushesAreMultiplexedOnOneConnection() async throws {
        let a = try FCMDeviceTransportTests.account("project-a"), b = try FCMDeviceTransportTests.account("project-b")
        var settings = FCMDeviceTransport.Settings()
        settings.maxConnections = 1
        try await FCMDeviceTransportTests.withTransport(knowing: [a, b], settings: settings) { simulator, transport in
            for round in 0..<2 {
                let pushes = (0..<400).map {
                    Push(app: $0 % 2 == 0 ? "app_a" : "app_b", account: $0 % 2 == 0 ? a : b, token: "device-\(round)-\($0)")
                }
                let answers = await FCMDeviceTransportTests.send(pushes, through: transport)
                #expect(answers.allSatisfy { $0?.verdict == .accepted && $0?.messageName != nil })
            }
            #expect(simulator.accepted().count == 800)
            #expect(Set(simulator.accepted().map(\.projectID)) == ["project-a", "project-b"])
            // Kept open across batches: one connection for all of them.
            #expect(simulator.connectionsAccepted == 1)
        }
    }

    @Test func anFCMThatRefusesConnectionsIsAnUnansweredRetryableSend() async throws {
        let a = try FCMDeviceTransportTests.account("project-a")
        // The token endpoint answers; nothing listens where FCM should be (port 9, discard).
        try await FCMDeviceTransportTests.withTransport(knowing: [a], fcmURL: { _ in "http://127.0.0.1:9" }) { simulator, transport in
            let (batch, _) = FCMDeviceTransportTests.batch([Push(app: "app_a", account: a, token: "device-1")])
            let outcomes = await transport.send(batch, recipients: 1, lane: .bulk)
            guard case .unanswered(let reason, let permanent)? = outcomes[0] else {
                Issue.record("expected no answer, got \(String(describing: outcomes[0]))")
                return
            }
            #expect(!permanent && reason == "Transport: connect failed")
            #expect(simulator.counters.tokenRequests == 1)
        }
    }

    @Test func aShutDownTransportSendsNothing() async throws {
        let a = try FCMDeviceTransportTests.account("project-a")
        try await FCMDeviceTransportTests.withTransport(knowing: [a]) { simulator, transport in
            let first = await FCMDeviceTransportTests.send([Push(app: "app_a", account: a, token: "device-1")], through: transport)
            #expect(first[0]?.verdict == .accepted)
            await transport.shutdown()
            let (batch, _) = FCMDeviceTransportTests.batch([Push(app: "app_a", account: a, token: "device-2")])
            let outcomes = await transport.send(batch, recipients: 1, lane: .bulk)
            guard case .unanswered(let reason, let permanent)? = outcomes[0] else {
                Issue.record("expected no answer, got \(String(describing: outcomes[0]))")
                return
            }
            #expect(!permanent && reason.hasPrefix("Transport: "))
            #expect(simulator.accepted().map(\.token) == ["device-1"])
        }
    }

    @Test func theFCMURLIsTheEndpointAndAPathPrefix() {
        #expect(FCMSender.split("https://fcm.googleapis.com") == ("https://fcm.googleapis.com", ""))
        #expect(FCMSender.split("https://fcm.googleapis.com/") == ("https://fcm.googleapis.com", ""))
        #expect(FCMSender.split("http://127.0.0.1:8089/fcm/") == ("http://127.0.0.1:8089", "/fcm"))
        let sender = FCMSender(fcmURL: "http://127.0.0.1:8089/fcm", tokenURL: "http://127.0.0.1:1/token",
                               settings: .init(), now: { 0 })
        #expect(sender.sendPath("my-project") == "/fcm/v1/projects/my-project/messages:send")
        #expect(sender.sendPath("a/b") == "/fcm/v1/projects/a%2Fb/messages:send")
    }
}
