/// Reads `delayed_option`, `delivery_time_of_day` and `throttle_rate_per_minute` for
/// `NotificationSendParser`, reporting problems on the same reader so one `InvalidInput` names them all.
/// OneSignal's rules: `delayed_option` is `timezone` or `last-active`; `delivery_time_of_day` goes
/// with `timezone` only; a per-device delay "cannot be used" with a throttle above 0.
package enum NotificationScheduleParser {
    /// OneSignal's type is a 32-bit integer; it documents no other bound.
    package static let maximumThrottleRate: Int64 = 2_147_483_647

    package enum Messages {
        package static let delayedOption = #"delayed_option must be one of: timezone, last-active"#
        package static let timeOfDayRequired = #"delivery_time_of_day is required with delayed_option "timezone""#
        package static let timeOfDayWithoutTimezone = #"delivery_time_of_day is only used with delayed_option "timezone""#
        package static let delayWithThrottle =
            "delayed_option cannot be used with throttle_rate_per_minute above 0: set throttle_rate_per_minute to 0 to use it"
    }

    package static func read(_ reader: inout FieldReader) -> NotificationSchedule {
        let option = reader.string("delayed_option")
        let timeOfDay = readTimeOfDay(&reader)
        let rate = reader.integer("throttle_rate_per_minute", in: 0...maximumThrottleRate).map(Int.init)

        var schedule = NotificationSchedule()
        switch option {
        case nil:
            if timeOfDay != nil { reader.problem(Messages.timeOfDayWithoutTimezone) }
        case "timezone"?:
            if let timeOfDay {
                schedule.delay = .localTime(secondsAfterMidnight: timeOfDay)
            } else if !reader.problems.contains(where: { $0.hasPrefix("delivery_time_of_day") }) {
                reader.problem(Messages.timeOfDayRequired)
            }
        case "last-active"?:
            schedule.delay = .lastActive
            if timeOfDay != nil { reader.problem(Messages.timeOfDayWithoutTimezone) }
        default:
            reader.problem(Messages.delayedOption)
        }
        if let rate, rate > 0 {
            schedule.throttleRatePerMinute = rate
            if option != nil { reader.problem(Messages.delayWithThrottle) }
        }
        return schedule
    }

    /// Seconds after midnight; a text that is not a time of day is a problem.
    static func readTimeOfDay(_ reader: inout FieldReader) -> Int? {
        guard let text = reader.string("delivery_time_of_day") else { return nil }
        guard let seconds = TimeOfDay.secondsAfterMidnight(text) else {
            reader.problem(TimeOfDay.message)
            return nil
        }
        return seconds
    }
}
