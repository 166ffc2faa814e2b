import Foundation
import Testing
import APNs
import APNsSimulator

/// `APNSSimulator.Configuration.maxRate` seen by the APNs client: over the cap a push waits for
/// its answer, never refused. (The bucket itself: `APNSSimulatorRateLimitTests`.)
@Suite struct APNSSimulatorRateLimitClientTests {
    @Test func aCappedSimulatorAnswersEveryPushButNoFasterThanItsRate() async throws {
        let simulator = try APNSSimulator(.init(acceptAnyToken: true, maxRate: 200))
        try simulator.start()
        defer { simulator.stop() }
        let client = try APNSTestSupport.client(simulator.endpoint, connections: 2)
        let pushes = (0..<300).map { APNSTestSupport.push(token: APNSTestSupport.token("a", $0)) }

        let results = await client.send(pushes, credential: try APNSTestSupport.credential(), environment: .sandbox)
        await client.shutdown()

        // None refused: over the cap a push waits.
        #expect(results.allSatisfy { (try? $0.get().status) == 200 })
        let times = simulator.accepted().map(\.receivedAt.timeIntervalSince1970).sorted()
        #expect(times.count == 300)
        // Recorded when answered: the first 4 (the burst) at once, then one every 5 ms at most,
        // so the 300 span at least 296 intervals. A loaded machine only makes it longer.
        let span = times.last! - times.first!
        #expect(span >= 295.0 / 200, "300 pushes answered within \(span) s at a cap of 200/s")
    }
}
