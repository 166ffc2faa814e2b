import Testing
import OpenPushCore

/// Quiet hours and muted threads, decided with the device's local time and `now` passed in.
@Suite struct QuietHoursTests {
    /// 2027-01-15T00:00:00Z: local midnight for a UTC device.
    static let midnight = 1_799_971_200.0

    static func window(_ start: String, _ end: String) throws -> QuietHoursWindow {
        let start = try #require(QuietHoursWindow.minutes(start))
        let end = try #require(QuietHoursWindow.minutes(end))
        return try #require(QuietHoursWindow(start: start, end: end))
    }

    static func hm(_ hours: Double, _ minutes: Double = 0, _ seconds: Double = 0) -> Double {
        hours * 3600 + minutes * 60 + seconds
    }

    @Test(arguments: [("00:00", 0), ("07:00", 420), ("22:30", 1350), ("23:59", 1439)])
    func timesParseAsMinutesAfterMidnight(text: String, minutes: Int) {
        #expect(QuietHoursWindow.minutes(text) == minutes)
        #expect(QuietHoursWindow.text(minutes) == text)
    }

    @Test(arguments: ["24:00", "7:00", "07:60", "07:0", "0700", "07-00", "ab:cd", " 7:00", "07:00 ", "", "１２:00"])
    func otherSpellingsAreRefused(text: String) {
        #expect(QuietHoursWindow.minutes(text) == nil)
    }

    @Test func aWindowNeedsTwoDifferentTimesWithinADay() {
        #expect(QuietHoursWindow(start: 420, end: 420) == nil)
        #expect(QuietHoursWindow(start: -1, end: 420) == nil)
        #expect(QuietHoursWindow(start: 0, end: 1440) == nil)
        #expect(QuietHoursWindow(start: 1320, end: 420)?.wrapsMidnight == true)
        #expect(QuietHoursWindow(start: 60, end: 420)?.wrapsMidnight == false)
        #expect(QuietHoursWindow(start: 1320, end: 420)?.json == ["start": "22:00", "end": "07:00"])
    }

    @Test func aWindowWrappingMidnightIsQuietFromItsStartToItsEndNextMorning() throws {
        let window = try Self.window("22:00", "07:00")
        let clock = ManualSeconds(Self.midnight + Self.hm(21, 59, 59))
        func state() -> QuietHours.State {
            QuietHours.state(window, localSecondsOfDay: clock.now - Self.midnight, now: clock.now)
        }
        #expect(state() == .open)
        clock.advance(1)  // 22:00:00, the start itself is quiet
        #expect(state() == .quiet(until: Self.midnight + 86_400 + Self.hm(7)))
        clock.advance(Self.hm(2))  // 00:00 next day: local time of day starts again at 0
        #expect(QuietHours.state(window, localSecondsOfDay: 0, now: clock.now) == .quiet(until: clock.now + Self.hm(7)))
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(6, 59, 59), now: clock.now) == .quiet(until: clock.now + 1))
        // The end itself is not quiet.
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(7), now: clock.now) == .open)
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(12), now: clock.now) == .open)
    }

    @Test func aWindowWithinADayIsQuietBetweenItsTimes() throws {
        let window = try Self.window("13:00", "14:30")
        let now = Self.midnight
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(12, 59, 59), now: now) == .open)
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(13), now: now) == .quiet(until: now + Self.hm(1, 30)))
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(14, 29, 59.5), now: now) == .quiet(until: now + 0.5))
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(14, 30), now: now) == .open)
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(23), now: now) == .open)
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(2), now: now) == .open)
    }

    @Test func theLocalTimeOfDayIsTakenModuloADay() throws {
        let window = try Self.window("22:00", "07:00")
        #expect(QuietHours.state(window, localSecondsOfDay: 86_400 + Self.hm(23), now: 0) == .quiet(until: Self.hm(8)))
        #expect(QuietHours.state(window, localSecondsOfDay: -Self.hm(1), now: 0) == .quiet(until: Self.hm(8)))
    }

    /// 2026-03-08, America/New_York springs forward at 02:00 EST → 03:00 EDT. A device quiet
    /// from 22:00 to 07:00 at 23:00 EST (04:00Z) has 7 wall-clock hours to go but only 6 real
    /// ones: the end instant computed in its zone (`openpush_device_clock`) wins.
    @Test func onADSTDayTheEndInstantComputedInTheZoneWins() throws {
        let window = try Self.window("22:00", "07:00")
        let now = 1_772_942_400.0  // 2026-03-08T04:00:00Z = 23:00 EST on the 7th
        let sevenEDT = 1_772_967_600.0  // 2026-03-08T11:00:00Z = 07:00 EDT
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(23), now: now, endsAt: sevenEDT) == .quiet(until: sevenEDT))
        #expect(sevenEDT - now == Self.hm(7))
        // Without the zone's answer, the wall-clock distance (8 hours).
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(23), now: now) == .quiet(until: now + Self.hm(8)))
        // An end instant already past (the clock moved on since it was read) falls back too.
        #expect(QuietHours.state(window, localSecondsOfDay: Self.hm(6, 59, 59), now: now, endsAt: now - 1) == .quiet(until: now + 1))
    }

    @Test func onlyTheMutedThreadsOfTheDeviceAreMuted() {
        #expect(MutedThreads.mutes(["scores", "news"], threadID: "scores"))
        #expect(!MutedThreads.mutes(["scores"], threadID: "Scores"))
        #expect(!MutedThreads.mutes(["scores"], threadID: nil))
        #expect(!MutedThreads.mutes([], threadID: "scores"))
    }
}

/// Seconds that move only when the test says so.
final class ManualSeconds {
    private(set) var now: Double
    init(_ start: Double) { now = start }
    func advance(_ seconds: Double) { now += seconds }
}
