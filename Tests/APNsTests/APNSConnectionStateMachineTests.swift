import Testing
@testable import APNs

@Suite struct APNSConnectionStateMachineTests {
    private let configuration = APNSConnectionStateMachine.Configuration(
        maxStreamsCap: 1000, pingInterval: 60, pingTimeout: 10, backoffBase: 0.5, backoffCap: 8)

    /// A machine that connected at `now` and got SETTINGS with `limit`.
    private func readyMachine(limit: UInt32 = 100, now: Double = 0) -> APNSConnectionStateMachine {
        var machine = APNSConnectionStateMachine(configuration: configuration)
        _ = machine.tick(now: now, hasWork: true, jitter: 0)
        machine.connectSucceeded(now: now)
        machine.settingsReceived(maxConcurrentStreams: limit, now: now)
        return machine
    }

    @Test func connectsOnlyWhenThereIsWork() {
        var machine = APNSConnectionStateMachine(configuration: configuration)
        #expect(machine.tick(now: 0, hasWork: false, jitter: 0) == .none)
        #expect(machine.state == .idle)
        #expect(machine.nextDeadline(hasWork: false) == nil)
        #expect(machine.tick(now: 1, hasWork: true, jitter: 0) == .connect)
        #expect(machine.state == .connecting)
    }

    @Test func becomesReadyOnTheFirstSettingsNotBefore() {
        var machine = APNSConnectionStateMachine(configuration: configuration)
        _ = machine.tick(now: 0, hasWork: true, jitter: 0)
        machine.connectSucceeded(now: 0)
        #expect(machine.state == .connecting)
        #expect(machine.availableStreams == 0)
        machine.settingsReceived(maxConcurrentStreams: 1, now: 0.1)
        #expect(machine.state == .ready)
        #expect(machine.availableStreams == 1)
    }

    @Test func followsTheServersConcurrencyLimitBothWays() {
        var machine = readyMachine(limit: 1)
        machine.streamOpened(1)
        #expect(machine.availableStreams == 0)
        #expect(machine.responseReceived(1, now: 1) == .none)
        // APNs raises the limit once a token is accepted.
        machine.settingsReceived(maxConcurrentStreams: 500, now: 1)
        #expect(machine.availableStreams == 500)
        for id in stride(from: Int32(3), through: 41, by: 2) { machine.streamOpened(id) }
        #expect(machine.availableStreams == 480)
        // A lower limit stops new streams until enough have closed.
        machine.settingsReceived(maxConcurrentStreams: 10, now: 2)
        #expect(machine.availableStreams == 0)
        for id in stride(from: Int32(3), through: 23, by: 2) { _ = machine.responseReceived(id, now: 3) }
        #expect(machine.inFlight.count == 9)
        #expect(machine.availableStreams == 1)
    }

    @Test func capsTheLimitLocally() {
        let machine = readyMachine(limit: UInt32.max)
        #expect(machine.maxConcurrentStreams == 1000)
    }

    @Test func goAwayRetriesStreamsAboveTheLastIDAndDrainsTheRest() {
        var machine = readyMachine()
        for id in [1, 3, 5, 7, 9] as [Int32] { machine.streamOpened(id) }
        #expect(machine.goAwayReceived(lastStreamID: 5, now: 1, jitter: 0) == .retry([7, 9]))
        #expect(machine.state == .draining(lastStreamID: 5))
        #expect(machine.availableStreams == 0)
        // The later REFUSED_STREAM closes of 7 and 9 are not news.
        #expect(machine.streamReset(7, now: 1, jitter: 0) == .none)
        #expect(machine.responseReceived(1, now: 2) == .none)
        #expect(machine.responseReceived(3, now: 2) == .none)
        // The last one out closes the connection; it answered, so reconnecting is immediate.
        #expect(machine.responseReceived(5, now: 2) == .closeConnection(retry: []))
        #expect(machine.state == .closed(reconnectAt: 2))
        #expect(machine.tick(now: 2, hasWork: true, jitter: 0) == .connect)
    }

    @Test func goAwayWithNothingLeftClosesAtOnce() {
        var machine = readyMachine()
        machine.streamOpened(1)
        machine.streamOpened(3)
        #expect(machine.goAwayReceived(lastStreamID: 0, now: 1, jitter: 0) == .closeConnection(retry: [1, 3]))
        #expect(machine.inFlight.isEmpty)
    }

    @Test func aSecondGoAwayCanOnlyLowerTheLastStreamID() {
        var machine = readyMachine()
        for id in [1, 3, 5] as [Int32] { machine.streamOpened(id) }
        #expect(machine.goAwayReceived(lastStreamID: 5, now: 1, jitter: 0) == .none)
        #expect(machine.goAwayReceived(lastStreamID: 1, now: 1, jitter: 0) == .retry([3, 5]))
        #expect(machine.goAwayReceived(lastStreamID: 99, now: 1, jitter: 0) == .none)
        #expect(machine.state == .draining(lastStreamID: 1))
    }

    @Test func aResetStreamIsRetriedAndTheConnectionKept() {
        var machine = readyMachine()
        machine.streamOpened(1)
        machine.streamOpened(3)
        #expect(machine.streamReset(3, now: 1, jitter: 0) == .retry([3]))
        #expect(machine.state == .ready)
        #expect(machine.inFlight == [1])
    }

    @Test func connectionLossReturnsEveryStreamInFlight() {
        var machine = readyMachine()
        for id in [5, 1, 3] as [Int32] { machine.streamOpened(id) }
        _ = machine.responseReceived(5, now: 1)
        #expect(machine.connectionLost(now: 2, jitter: 0) == .closeConnection(retry: [1, 3]))
        #expect(machine.inFlight.isEmpty)
        #expect(machine.availableStreams == 0)
        // It answered a stream before, so no backoff.
        #expect(machine.state == .closed(reconnectAt: 2))
    }

    @Test func failedConnectsBackOffExponentiallyWithJitterUpToTheCap() {
        var machine = APNSConnectionStateMachine(configuration: configuration)
        var now = 0.0
        var delays: [Double] = []
        for _ in 0..<7 {
            #expect(machine.tick(now: now, hasWork: true, jitter: 0) == .connect)
            machine.connectFailed(now: now, jitter: 1)
            guard case .closed(let reconnectAt) = machine.state else {
                Issue.record("not closed: \(machine.state)")
                return
            }
            delays.append(reconnectAt - now)
            // Not before the deadline, and not without work.
            #expect(machine.tick(now: reconnectAt - 0.01, hasWork: true, jitter: 0) == .none)
            #expect(machine.tick(now: reconnectAt, hasWork: false, jitter: 0) == .none)
            #expect(machine.nextDeadline(hasWork: true) == reconnectAt)
            now = reconnectAt
        }
        #expect(delays == [0.5, 1, 2, 4, 8, 8, 8])
        #expect(machine.failures == 7)
    }

    @Test func jitterScalesTheDelayIntoItsUpperHalf() {
        let configuration = self.configuration
        #expect(APNSConnectionStateMachine.backoff(failures: 0, configuration: configuration, jitter: 1) == 0)
        #expect(APNSConnectionStateMachine.backoff(failures: 3, configuration: configuration, jitter: 0) == 1)
        #expect(APNSConnectionStateMachine.backoff(failures: 3, configuration: configuration, jitter: 0.5) == 1.5)
        #expect(APNSConnectionStateMachine.backoff(failures: 3, configuration: configuration, jitter: 1) == 2)
        #expect(APNSConnectionStateMachine.backoff(failures: 64, configuration: configuration, jitter: 1) == 8)
    }

    @Test func aConnectionThatNeverAnswersKeepsBackingOff() {
        // Accepts, sends SETTINGS, then GOAWAY before answering anything: no hot loop.
        var machine = readyMachine()
        machine.streamOpened(1)
        #expect(machine.goAwayReceived(lastStreamID: 0, now: 10, jitter: 1) == .closeConnection(retry: [1]))
        #expect(machine.state == .closed(reconnectAt: 10.5))
        #expect(machine.tick(now: 10.5, hasWork: true, jitter: 0) == .connect)
        machine.connectSucceeded(now: 10.5)
        machine.settingsReceived(maxConcurrentStreams: 10, now: 10.5)
        #expect(machine.connectionLost(now: 11, jitter: 1) == .closeConnection(retry: []))
        #expect(machine.state == .closed(reconnectAt: 12))
        // One answer resets the count.
        _ = machine.tick(now: 12, hasWork: true, jitter: 0)
        machine.connectSucceeded(now: 12)
        machine.settingsReceived(maxConcurrentStreams: 10, now: 12)
        machine.streamOpened(1)
        _ = machine.responseReceived(1, now: 12.1)
        #expect(machine.failures == 0)
    }

    @Test func pingsWhenIdleAndDeclaresTheConnectionDeadWithoutAnAck() {
        var machine = readyMachine(now: 0)
        #expect(machine.nextDeadline(hasWork: false) == 60)
        #expect(machine.tick(now: 59, hasWork: false, jitter: 0) == .none)
        #expect(machine.tick(now: 60, hasWork: false, jitter: 0) == .sendPing)
        // Only one PING outstanding.
        #expect(machine.tick(now: 61, hasWork: false, jitter: 0) == .none)
        #expect(machine.nextDeadline(hasWork: false) == 70)
        machine.bytesReceived(now: 62)  // the ack
        #expect(machine.nextDeadline(hasWork: false) == 122)
        #expect(machine.tick(now: 122, hasWork: false, jitter: 0) == .sendPing)
        machine.streamOpened(1)
        #expect(machine.tick(now: 132, hasWork: false, jitter: 0) == .closeConnection(retry: [1]))
        guard case .closed = machine.state else {
            Issue.record("not closed: \(machine.state)")
            return
        }
    }

    @Test func noSettingsInTimeIsADeadConnection() {
        var machine = APNSConnectionStateMachine(configuration: configuration)
        _ = machine.tick(now: 0, hasWork: true, jitter: 0)
        machine.connectSucceeded(now: 0)
        #expect(machine.nextDeadline(hasWork: true) == 10)
        #expect(machine.tick(now: 9, hasWork: true, jitter: 0) == .none)
        #expect(machine.tick(now: 10, hasWork: true, jitter: 0) == .closeConnection(retry: []))
    }

    @Test func shutdownReturnsWhatIsInFlightAndEndsForGood() {
        var machine = readyMachine()
        machine.streamOpened(1)
        #expect(machine.shutdown() == .closeConnection(retry: [1]))
        #expect(machine.state == .shutDown)
        #expect(machine.tick(now: 100, hasWork: true, jitter: 0) == .none)
        var idle = APNSConnectionStateMachine(configuration: configuration)
        #expect(idle.shutdown() == .none)
    }

    @Test func eventsForUnknownStreamsAreIgnored() {
        var machine = readyMachine()
        #expect(machine.responseReceived(99, now: 1) == .none)
        #expect(machine.streamReset(99, now: 1, jitter: 0) == .none)
        #expect(machine.failures == 0)
    }
}
