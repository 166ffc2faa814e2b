import Testing
import OpenPushCore

/// `outcome_names` and the other parameters of `GET /apps/{app_id}/outcomes`, and a device's
/// report, read without I/O.
@Suite struct OutcomeQueryTests {
    @Test func namesSplitAtCommasAndTheBracketedNameKeepsItsCommas() throws {
        let query = try OutcomeQuery.parse([
            "outcome_names": "os__click.count, Purchase.sum,Purchase.sum", "outcome_names[]": "Sales, Purchase.count",
        ]).get()
        #expect(query.names == [OutcomeName(name: "os__click", aggregation: .count), OutcomeName(name: "Purchase", aggregation: .sum),
                                OutcomeName(name: "Sales, Purchase", aggregation: .count)])
        #expect(query.range == .hour && query.platforms == nil && query.attribution == .total)
    }

    @Test func platformsMapOneSignalDeviceTypesToOpenPushPlatforms() throws {
        #expect(try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_platforms": "0"]).get().platforms == ["ios", "watchos"])
        #expect(try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_platforms": "9,0"]).get().platforms
                == ["macos", "ios", "watchos"])
        #expect(try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_platforms": "1,5"]).get().platforms == ["android"])
        #expect(try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_platforms": "5"]).get().platforms == [])
        #expect(throws: InvalidInput.self) { try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_platforms": "15"]).get() }
    }

    @Test func theWindowStartsAtItsHour() throws {
        let query = try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_time_range": "1h"]).get()
        #expect(query.windowStart(now: 10_000) == 6_400)
        #expect(query.firstHour(now: 10_000) == 3_600)
        #expect(try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_time_range": "30d"]).get().range.seconds == 2_592_000)
        #expect(try OutcomeQuery.parse(["outcome_names": "a.count", "outcome_time_range": "1mo"]).get().range.seconds == 2_592_000)
    }

    @Test func attributionsMatchWhatIsRecorded() {
        #expect(OutcomeQuery.Attribution.total.includes(.direct) && OutcomeQuery.Attribution.total.includes(.unattributed))
        #expect(OutcomeQuery.Attribution.direct.includes(.direct) && !OutcomeQuery.Attribution.direct.includes(.unattributed))
        #expect(!OutcomeQuery.Attribution.influenced.includes(.direct) && !OutcomeQuery.Attribution.influenced.includes(.unattributed))
    }

    @Test func aReportIsDirectWithANotificationAndBounded() throws {
        let direct = try OutcomeReport.parse(["token": "t", "name": "Purchase", "value": 5, "notification_id": "msg_1"]).get()
        #expect(direct.attribution == .direct && direct.value == 5)
        let plain = try OutcomeReport.parse(["token": "t", "name": "Purchase"]).get()
        #expect(plain.attribution == .unattributed && plain.value == 0)
        let bad = OutcomeReport.parse(["name": .string(String(repeating: "x", count: 65)), "value": 1.5])
        #expect(bad == .failure(InvalidInput([
            "token is required", "name: a name must be 1 to 64 characters", "value must be an integer from 0 to 1000000000",
        ])))
    }
}
