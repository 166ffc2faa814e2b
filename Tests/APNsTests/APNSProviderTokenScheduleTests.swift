import Testing
import APNs

@Suite struct APNSProviderTokenScheduleTests {
    private let start = 1_800_000_000.0

    private func scheduleWithToken(issuedAt: Double) -> APNSProviderTokenSchedule {
        APNSProviderTokenSchedule(current: APNSProviderToken(jwt: "t\(Int64(issuedAt))", issuedAt: Int64(issuedAt)))
    }

    @Test func issuesTheFirstTokenWithAnIntegerIAT() {
        #expect(APNSProviderTokenSchedule().decision(now: start + 0.75) == .issue(issuedAt: Int64(start)))
    }

    @Test(arguments: [0.0, 60.0, 1200.0, 2999.0] as [Double])
    func reusesTheTokenForFiftyMinutes(age: Double) {
        let schedule = scheduleWithToken(issuedAt: start)
        #expect(schedule.decision(now: start + age) == .reuse(schedule.current!))
    }

    @Test(arguments: [3000.0, 3540.0, 10800.0] as [Double])
    func renewsAfterFiftyMinutes(age: Double) {
        let schedule = scheduleWithToken(issuedAt: start)
        #expect(schedule.decision(now: start + age) == .issue(issuedAt: Int64(start + age)))
    }

    @Test(arguments: [0.0, 60.0, 1199.0] as [Double])
    func anExpiredVerdictWithinTwentyMinutesKeepsTheToken(age: Double) {
        let schedule = scheduleWithToken(issuedAt: start)
        #expect(schedule.decision(now: start + age, afterRejecting: schedule.current!.jwt) == .reuse(schedule.current!))
    }

    @Test(arguments: [1200.0, 1800.0, 2940.0] as [Double])
    func anExpiredVerdictAfterTwentyMinutesRenews(age: Double) {
        let schedule = scheduleWithToken(issuedAt: start)
        #expect(schedule.decision(now: start + age, afterRejecting: schedule.current!.jwt)
            == .issue(issuedAt: Int64(start + age)))
    }

    @Test func anExpiredVerdictOnAnOlderTokenUsesTheCurrentOne() {
        // Many in-flight requests come back ExpiredProviderToken: the first renews, the rest
        // must not renew again.
        let schedule = scheduleWithToken(issuedAt: start + 30 * 60)
        #expect(schedule.decision(now: start + 31 * 60, afterRejecting: "an-older-token") == .reuse(schedule.current!))
    }

    @Test func aClockThatSteppedBackKeepsTheToken() {
        let schedule = scheduleWithToken(issuedAt: start)
        #expect(schedule.decision(now: start - 3600) == .reuse(schedule.current!))
    }

    @Test func installReplacesTheCurrentToken() {
        var schedule = scheduleWithToken(issuedAt: start)
        let fresh = APNSProviderToken(jwt: "fresh", issuedAt: Int64(start) + 3000)
        schedule.install(fresh)
        #expect(schedule.current == fresh)
    }
}
