import Foundation
import Testing

/// Issue #11's scale check: a thousand apps, each with its own key, are served by a fixed
/// number of event-loop threads, not threads per pool. The client runs in a child process
/// (`apns-client-bench --apps`, see bench/apns-client/ManyApps.swift) and the simulator in
/// another, so the thread count read from /proc/self/status is the client's alone, whatever
/// other tests run meanwhile in this process.
@Suite struct APNSClientManyAppsTests {
    @Test func aThousandAppsWithTheirOwnKeysStayUnderSixtyFourThreads() async throws {
        let simulator = try APNSSimulatorProcess()
        defer { simulator.stop() }
        let output = try await runToEnd(
            try builtExecutable("apns-client-bench"), ["--apps", "1000", simulator.url, "3"], timeout: 180)
        let line = try #require(output.split(separator: "\n").last, "no report from apns-client-bench: \(output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int])

        #expect(report["accepted"] == 1000)
        // One push per key opens the pool on one of its loops, with one connection. Counted as
        // connections opened: on a loaded machine the first pools may already have gone idle and
        // closed by the time the last push is answered, so the ones still open are fewer.
        #expect(report["connectionsOpened"] == 1000, "\(report)")
        #expect(report["poolsOpen"] == report["connectionsOpen"], "\(report)")
        #expect(try #require(report["poolsOpen"]) > 0, "\(report)")
        #expect(try #require(report["peakThreads"]) < 64, "\(report)")
        #expect(try #require(report["threadsAfterSends"]) < 64, "\(report)")
        // After the idle time every pool closed on its own.
        #expect(report["poolsAfterIdle"] == 0)
        #expect(report["connectionsAfterIdle"] == 0)
        #expect(try #require(report["threadsAfterIdle"]) < 64, "\(report)")
    }
}
