import Testing
import OpenPushCore

/// The stats routes' pure parts: durations, the two queries, bucket alignment and filling.
@Suite struct StatsWindowTests {
    @Test(arguments: [("10s", 10), ("1s", 1), ("15m", 900), ("24h", 86400), ("7d", 604_800), ("0s", 0)] as [(String, Int64)])
    func durationsParse(text: String, seconds: Int64) {
        #expect(StatsDuration.seconds(text) == seconds)
    }

    @Test(arguments: ["", "s", "15", "15x", "1.5m", "-1m", "+1m", " 1m", "1m ", "1M", "１m", "9999999999s", "1h30m"])
    func otherTextIsNoDuration(text: String) {
        #expect(StatsDuration.seconds(text) == nil)
    }

    @Test func durationsPrintWithTheLargestUnit() {
        #expect(StatsDuration.text(900) == "15m")
        #expect(StatsDuration.text(86400) == "1d")
        #expect(StatsDuration.text(90) == "90s")
        #expect(StatsDuration.text(7200) == "2h")
    }

    @Test func throughputDefaultsToFifteenMinutesInTenSecondSteps() throws {
        #expect(try ThroughputRequest.read([:]) == ThroughputRequest(window: 900, step: 10))
        #expect(try ThroughputRequest.read(["window": "24h", "step": "5m"]) == ThroughputRequest(window: 86400, step: 300))
        #expect(try ThroughputRequest.read(["window": "1000s", "step": "1s"]) == ThroughputRequest(window: 1000, step: 1))
    }

    @Test(arguments: [
        (["window": "25h", "step": "1m"], [ThroughputRequest.invalidWindow]),
        (["window": "0s"], [ThroughputRequest.invalidWindow]),
        (["window": "15"], [ThroughputRequest.invalidWindow]),
        (["step": "0s"], [ThroughputRequest.invalidStep]),
        (["step": "ten"], [ThroughputRequest.invalidStep]),
        (["window": "1m", "step": "2m"], [ThroughputRequest.invalidStep]),
        (["window": "1001s", "step": "1s"], [ThroughputRequest.tooManyBuckets]),
        (["window": "24h"], [ThroughputRequest.tooManyBuckets]),
        (["window": "x", "step": "y"], [ThroughputRequest.invalidWindow, ThroughputRequest.invalidStep]),
    ] as [([String: String], [String])])
    func badThroughputQueriesNameTheField(query: [String: String], messages: [String]) {
        #expect(throws: InvalidInput(messages)) { try ThroughputRequest.read(query) }
    }

    @Test func appStatsDefaultToADayAndStopAtThirtyDays() throws {
        #expect(try AppStatsRequest.read([:]).window == 86400)
        #expect(try AppStatsRequest.read(["window": "1h"]).window == 3600)
        #expect(try AppStatsRequest.read(["window": "30d"]).window == 2_592_000)
        for bad in ["31d", "0h", "", "1 h"] {
            #expect(throws: InvalidInput(AppStatsRequest.invalidWindow)) { try AppStatsRequest.read(["window": bad]) }
        }
    }

    @Test func appStatsRangeEndsAtNow() {
        let range = AppStatsRequest(window: 3600).range(now: 1_800_000_000.25)
        #expect(range.from == 1_799_996_401)
        #expect(range.to == 1_800_000_001)
    }

    @Test func bucketsAreAlignedToTheStepAndTheLastHoldsNow() {
        let buckets = StatsBuckets(now: 1_800_000_007.5, window: 60, step: 10)
        #expect(buckets.count == 6)
        #expect(buckets.first == 1_799_999_950)
        #expect(buckets.end == 1_800_000_010)
        // A moment later the same buckets: two reads agree on where a push falls.
        #expect(StatsBuckets(now: 1_800_000_009.9, window: 60, step: 10) == buckets)
        #expect(StatsBuckets(now: 1_800_000_010, window: 60, step: 10).first == 1_799_999_960)
    }

    @Test func aPartialStepCountsAsAWholeBucket() {
        #expect(StatsBuckets.count(window: 65, step: 10) == 7)
        #expect(StatsBuckets.count(window: 5, step: 10) == 1)
        #expect(StatsBuckets(now: 100, window: 65, step: 10).first == 40)
    }

    @Test func alignmentBeforeTheEpochRoundsDown() {
        #expect(StatsBuckets.floor(-5, to: 10) == -10)
        #expect(StatsBuckets.floor(-10, to: 10) == -10)
        #expect(StatsBuckets.floor(19.99, to: 10) == 10)
    }

    @Test func emptyBucketsAreFilledWithZero() {
        let buckets = StatsBuckets(step: 10, first: 100, count: 4)
        let filled = buckets.fill([110: (accepted: 3, failed: 1), 130: (accepted: 0, failed: 2), 500: (accepted: 9, failed: 9)])
        #expect(filled == [
            .init(at: 100), .init(at: 110, accepted: 3, failed: 1), .init(at: 120), .init(at: 130, accepted: 0, failed: 2),
        ])
    }
}
