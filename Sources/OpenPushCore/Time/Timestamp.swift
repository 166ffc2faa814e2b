/// Timestamps in API responses: ISO 8601 in UTC with milliseconds, `2026-11-30T07:00:00.000Z`,
/// the format OneSignal's REST API uses. Computed by calendar arithmetic, with no formatter or
/// locale, so the text depends on the number alone.
package enum Timestamp {
    private static let millisecondsPerDay: Int64 = 86_400_000

    /// `unixSeconds` rounded to the nearest millisecond.
    package static func iso8601(_ unixSeconds: Double) -> String {
        let milliseconds = Int64((unixSeconds * 1000).rounded())
        // Floor division, so instants before 1970 land on the right day.
        var days = milliseconds / millisecondsPerDay
        var ofDay = milliseconds % millisecondsPerDay
        if ofDay < 0 {
            days -= 1
            ofDay += millisecondsPerDay
        }
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let hour = ofDay / 3_600_000
        let minute = ofDay / 60_000 % 60
        let second = ofDay / 1000 % 60
        let millisecond = ofDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after Howard Hinnant's
    /// `civil_from_days`: eras of 400 years, each starting on 1 March.
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 is March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
