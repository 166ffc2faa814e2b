import Foundation
import Testing
import OpenPushCore
import APNs
import Crypto

/// Pools open with the first push, close when idle or when their credential is retired.
@Suite struct APNSClientPoolLifetimeTests {
    @Test func anIdlePoolClosesAndTheNextPushReopensItWithTheSameToken() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, idleTimeout: 0.3)
        let credential = try APNSTestSupport.credential()
        let request = APNSTestSupport.push(token: APNSTestSupport.token("a"))

        #expect(try await client.send(request, credential: credential, environment: .sandbox).status == 200)
        #expect(try await client.waitForMetrics { $0.openConnections == 0 && $0.openPools == 0 })
        #expect(try await client.send(request, credential: credential, environment: .sandbox).status == 200)
        let opened = client.connectionsOpened
        await client.shutdown()

        #expect(opened == 2)
        #expect(server.snapshot().connections == 2)
        // The provider token outlives the idle pool: APNs counts every new one.
        let tokens = Set(server.snapshot().requests.map { $0.value("authorization") })
        #expect(tokens.count == 1)
    }

    @Test func aPoolWithAPushInFlightStaysOpenPastTheIdleTime() async throws {
        // The server holds `5…` pushes for four idle times before answering.
        let server = H2TestServer { request in
            if request.deviceToken.hasPrefix("5") { Thread.sleep(forTimeInterval: 0.8) }
            return APNSTestSupport.reply(to: request)
        }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url, idleTimeout: 0.2)
        let credential = try APNSTestSupport.credential()
        // Closing the pool would fail the push with a transport error instead.
        let slow = try await client.send(
            APNSTestSupport.push(token: APNSTestSupport.token("5")), credential: credential, environment: .sandbox)
        await client.shutdown()
        #expect(slow.status == 200)
        #expect(client.connectionsOpened == 1)
    }

    @Test func retiringACredentialClosesItsPoolsAndForgetsItsToken() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let retired = try APNSTestSupport.credential()
        let other = APNSCredential(
            keyID: "OTHERKEY01", teamID: "TEAM123456", signingKey: try P256SigningKey(pem: P256SigningKey.generatePEM()))
        let request = APNSTestSupport.push(token: APNSTestSupport.token("a"))

        #expect(try await client.send(request, credential: retired, environment: .sandbox).status == 200)
        #expect(try await client.send(request, credential: retired, environment: .production).status == 200)
        #expect(try await client.send(request, credential: other, environment: .sandbox).status == 200)
        #expect(client.metrics.openPools == 3)
        #expect(client.metrics.openConnections == 3)

        await client.retire(credential: retired)
        #expect(client.metrics.openPools == 1)
        #expect(client.metrics.openConnections == 1)

        // Used again, it starts afresh: a new connection and a newly signed token.
        #expect(try await client.send(request, credential: retired, environment: .sandbox).status == 200)
        await client.shutdown()
        #expect(client.connectionsOpened == 4)
        let tokens = Set(server.snapshot().requests.compactMap { $0.value("authorization") })
        #expect(tokens.count == 3)  // the retired key's before and after, and the other key's
    }

    @Test func aRetiredCredentialsPushInFlightFailsAsATransportError() async throws {
        let server = H2TestServer { _ in .ignore }
        defer { server.stop() }
        let client = try APNSTestSupport.client(server.url)
        let credential = try APNSTestSupport.credential()
        let pending = try await APNSTestSupport.pushInFlight(client, server: server, credential: credential)
        await client.retire(credential: credential)
        let results = await pending.value
        await client.shutdown()
        #expect(throws: APNSTransportError(.shutdown, "the credential was retired")) { try results[0].get() }
    }
}
