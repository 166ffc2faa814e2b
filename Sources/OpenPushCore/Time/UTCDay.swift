/// A calendar day in UTC, counted from 1970-01-01. Delivery records are partitioned by these
/// days, named `YYYYMMDD`; the arithmetic is Timestamp's, so no calendar or locale is involved.
package struct UTCDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var daysSinceEpoch: Int64

    package init(daysSinceEpoch: Int64) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// The day `unixSeconds` falls on.
    package init(containing unixSeconds: Double) {
        daysSinceEpoch = Int64((unixSeconds / 86_400).rounded(.down))
    }

    /// `20260105`; nil unless it is eight digits naming a real date.
    package init?(yyyymmdd text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 8, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let number = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        let (year, month, day) = (number / 10_000, number / 100 % 100, number % 100)
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        let candidate = UTCDay(daysSinceEpoch: Self.daysSinceEpoch(year: year, month: month, day: day))
        // 20250230 lands on 2 March: only a date that reads back the same is real.
        guard candidate.yyyymmdd == text else { return nil }
        self = candidate
    }

    package var yyyymmdd: String {
        let (year, month, day) = Timestamp.civilDate(daysSinceEpoch: daysSinceEpoch)
        return Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(day, 2)
    }

    /// `2026-01-05`, as PostgreSQL reads a `date`.
    package var isoDate: String {
        let (year, month, day) = Timestamp.civilDate(daysSinceEpoch: daysSinceEpoch)
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))"
    }

    /// Unix seconds at 00:00 UTC of the day.
    package var startSeconds: Double { Double(daysSinceEpoch) * 86_400 }

    package var description: String { isoDate }

    package static func + (day: UTCDay, days: Int) -> UTCDay { UTCDay(daysSinceEpoch: day.daysSinceEpoch + Int64(days)) }
    package static func - (day: UTCDay, days: Int) -> UTCDay { day + -days }
    package static func < (lhs: UTCDay, rhs: UTCDay) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    /// The inverse of `Timestamp.civilDate`, after Howard Hinnant's `days_from_civil`.
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
