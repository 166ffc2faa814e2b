import Testing
@testable import OpenPushServer

@Suite struct LockRetryScheduleTests {
    @Test func doublesFromFiveMillisecondsToAHundred() {
        var schedule = LockRetrySchedule()
        let delays = (0..<7).map { _ in schedule.next() }
        #expect(delays == [.milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(40),
                           .milliseconds(80), .milliseconds(100), .milliseconds(100)])
    }
}
