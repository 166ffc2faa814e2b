import Testing
import OpenPushCore

/// A job's records tallied into what they add to the message's counts, as the view counts them.
@Suite struct DeliveryTallyTests {
    @Test func recordsAreTalliedByStateAndReason() {
        let tally = DeliveryTally([
            (state: .accepted, reason: nil), (state: .accepted, reason: nil),
            (state: .error, reason: "Unregistered"), (state: .error, reason: "BadDeviceToken"),
            (state: .error, reason: "TooManyRequests"), (state: .error, reason: "TooManyRequests"),
            (state: .error, reason: nil),
            (state: .cancelled, reason: nil), (state: .superseded, reason: nil),
            (state: .suppressed, reason: "stale"), (state: .suppressed, reason: "deduplicated"),
            (state: .suppressed, reason: "stale"),
        ])
        #expect(tally.successful == 2)
        #expect(tally.failed == 2)
        // An error with no reason is in neither figure, as the view always counted it.
        #expect(tally.errored == 2)
        #expect(tally.cancelled == 1)
        #expect(tally.errorsByReason == ["Unregistered": 1, "BadDeviceToken": 1, "TooManyRequests": 2])
        #expect(tally.suppressedByReason == ["stale": 2, "deduplicated": 1])
        #expect(tally.records == 12)
        // The stats rollup's figures: every error and every suppression, reason or not.
        #expect(tally.errors == 5)
        #expect(tally.suppressed == 3)
        #expect(!tally.isEmpty)
    }

    @Test func noRecordsAddNothing() {
        let tally = DeliveryTally([(state: DeliveryState, reason: String?)]())
        #expect(tally.isEmpty)
        #expect(tally == DeliveryTally())
    }
}
