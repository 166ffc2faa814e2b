import Foundation
import Synchronization
import Testing
import APNs
import Crypto

/// Issue #11's scale check: a thousand apps, each with its own key, are served by one event
/// loop, not threads per pool. The simulator runs in a child process, so this process's
/// thread count is the client's (plus the test runner's).
@Suite struct APNSClientManyAppsTests {
    @Test func aThousandAppsWithTheirOwnKeysStayUnderSixtyFourThreads() async throws {
        let simulator = try APNSSimulatorProcess()
        defer { simulator.stop() }
        let credentials = try (0..<1000).map { index in
            APNSCredential(
                keyID: String(format: "KEY%07d", index), teamID: "TEAM123456",
                signingKey: try P256SigningKey(pem: P256SigningKey.generatePEM()))
        }
        let configuration = APNSClientConfiguration(
            productionURL: simulator.url, sandboxURL: simulator.url, connectTimeout: 10, requestTimeout: 60,
            idleTimeout: 8)
        let client = try APNSClient(configuration: configuration)
        let request = APNSPushRequest(
            deviceToken: String(repeating: "ab", count: 32), pushType: .alert, topic: "com.example.app", priority: 10,
            payload: Array(#"{"aps":{"alert":"Hello"}}"#.utf8))

        let peak = Mutex(processThreadCount())
        let sampling = Task {
            while !Task.isCancelled {
                let now = processThreadCount()
                peak.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let statuses = await withTaskGroup(of: Int.self) { group in
            for credential in credentials {
                group.addTask {
                    (try? await client.send(request, credential: credential, environment: .production))?.status ?? -1
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let whileOpen = client.metrics
        sampling.cancel()
        _ = await sampling.value

        #expect(statuses.count == 1000)
        #expect(statuses.allSatisfy { $0 == 200 })
        // One push per key opens the pool on one of its loops only.
        #expect(whileOpen.openPools == 1000)
        #expect(whileOpen.openConnections == 1000)
        #expect(peak.withLock { $0 } < 64, "threads at the peak")
        #expect(processThreadCount() < 64, "threads after")

        // After the idle time every pool closes on its own.
        #expect(try await client.waitForMetrics(timeout: 40) { $0.openConnections == 0 && $0.openPools == 0 })
        #expect(processThreadCount() < 64)
        await client.shutdown()
    }
}
