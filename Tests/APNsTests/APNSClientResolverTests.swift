import Foundation
import Testing
import OpenPushCore
import APNs

/// Host names are resolved on the resolver thread, never on the event loop.
@Suite struct APNSClientResolverTests {
    @Test func aHostNameIsResolvedAndUsed() async throws {
        let server = H2TestServer(handler: APNSTestSupport.reply)
        defer { server.stop() }
        let client = try APNSTestSupport.client("http://localhost:\(server.port)", connections: 2)
        let requests = (0..<20).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }
        let results = await client.send(requests, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        #expect(server.snapshot().requests.first?.value(":authority") == "localhost:\(server.port)")
    }

    @Test func aHostThatDoesNotResolveIsAConnectError() async throws {
        let client = try APNSTestSupport.client("http://no-such-host.invalid:2197")
        let error = await #expect(throws: APNSTransportError.self) {
            try await client.send(
                APNSTestSupport.push(token: APNSTestSupport.token("a")), credential: try APNSTestSupport.credential(),
                environment: .sandbox)
        }
        await client.shutdown()
        #expect(error?.kind == .connectFailed)
        #expect(error?.message.contains("cannot resolve no-such-host.invalid") == true)
    }
}
