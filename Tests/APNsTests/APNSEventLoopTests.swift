import Foundation
import Testing
import OpenPushCore
import APNs

#if canImport(Glibc)
import Glibc
#endif

/// Nothing a connection waits for holds up the other connections of its loop.
@Suite struct APNSEventLoopNonBlockingTests {
    @Test func aHandshakeThatHangsDoesNotHoldUpOtherPushes() async throws {
        // Listening but never accepting: TCP connects (the kernel's backlog), TLS never answers.
        let hanging = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(hanging) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                precondition(bind(hanging, $0, length) == 0 && listen(hanging, 8) == 0)
                _ = getsockname(hanging, $0, &length)
            }
        }
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSClient(configuration: APNSClientConfiguration(
            productionURL: "https://127.0.0.1:\(UInt16(bigEndian: address.sin_port))", sandboxURL: server.url,
            connectionsPerKey: 1, eventLoops: 1, connectTimeout: 45, requestTimeout: 120))
        let credential = try APNSTestSupport.credential()

        let stuck = Task {
            try await client.send(APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: credential,
                                  environment: .production)
        }
        // The stuck push waits in the queue while its TLS handshake is under way. The 45 s connect
        // timeout outlasts this poll and the other push on a loaded machine (one run beside busy
        // loops took over 15 s to see the queue), so the stuck push is still waiting when the
        // other one is checked.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(40)
        while client.metrics.queuedRequests != 1, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(client.metrics.queuedRequests == 1, "the stuck push never reached the queue")
        let other = try await client.send(
            APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: credential, environment: .sandbox)
        let stuckStillWaits = client.metrics.queuedRequests == 1
        #expect(other.status == 200)  // over h2c, though the client has a TLS endpoint too
        #expect(stuckStillWaits)
        let error = await #expect(throws: APNSTransportError.self) { try await stuck.value }
        await client.shutdown()
        #expect(error?.kind == .connectFailed)
        #expect(error?.message.contains("timed out") == true)
    }
}
