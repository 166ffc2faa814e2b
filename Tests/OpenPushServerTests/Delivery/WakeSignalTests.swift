import Testing
@testable import OpenPushDelivery
@testable import OpenPushServer

/// The delivery loops' and the webhook dispatcher's wake-up: a stop must reach every loop,
/// including those not yet parked when it came.
@Suite struct WakeSignalTests {
    /// Far longer than any bound below: a wait that is not woken shows as a failed bound.
    private static let idle: Duration = .seconds(600)
    /// A woken wait returns in milliseconds; the bound leaves a loaded machine minutes (one run
    /// beside busy loops took 42 s to schedule four tasks and a close).
    private static let woken: Duration = .seconds(300)

    @Test func aSignalWithNobodyWaitingWakesOnlyTheNextWait() async {
        let wake = WakeSignal()
        wake.signal()
        let clock = ContinuousClock()
        let start = clock.now
        await wake.wait(timeout: Self.idle)
        #expect(clock.now - start < Self.woken)
        // Consumed: the next wait runs to its timeout.
        let second = clock.now
        await wake.wait(timeout: .milliseconds(200))
        #expect(clock.now - second >= .milliseconds(200))
    }

    @Test func afterACloseEveryWaitReturnsAtOnce() async {
        let wake = WakeSignal()
        wake.close()
        let clock = ContinuousClock()
        let start = clock.now
        // Loops that were between their look at the stop flag and their wait: all of them,
        // not only the first, must come back (with one pending signal the second slept 120 s).
        for _ in 0..<3 { await wake.wait(timeout: Self.idle) }
        #expect(clock.now - start < Self.woken)
    }

    @Test func aCloseWakesLoopsAlreadyWaiting() async {
        let wake = WakeSignal()
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { await wake.wait(timeout: Self.idle) }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(100))
                wake.close()
            }
        }
        #expect(clock.now - start < Self.woken)
    }
}
