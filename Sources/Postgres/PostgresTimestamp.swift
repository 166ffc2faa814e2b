import Foundation

/// `timestamptz` text, done by hand with the proleptic Gregorian calendar: faster than
/// formatters, exact to the microsecond, and independent of the process's locale and time zone.
enum PostgresTimestamp {
    private static let microsecondsPerSecond: Int64 = 1_000_000
    private static let secondsPerDay: Int64 = 86_400

    /// `2026-11-30T06:55:03.123456Z`; years before 1 AD get PostgreSQL's ` BC` suffix.
    static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = floorDivide(micros, microsecondsPerSecond)
        let fraction = micros - seconds * microsecondsPerSecond
        let days = floorDivide(seconds, secondsPerDay)
        let secondOfDay = seconds - days * secondsPerDay
        let (year, month, day) = civil(fromDays: days)
        let bc = year <= 0
        let time = "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(fraction, 6))"
        let dateText = "\(pad(bc ? 1 - year : year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        return bc ? "\(dateText) \(time)+00 BC" : "\(dateText)T\(time)Z"
    }

    /// Parses ISO output such as `2026-11-30 06:55:03.123456+00`, `…+05:30`, `…Z`, `… BC`,
    /// a bare date, and `infinity` / `-infinity`. No offset means UTC.
    static func parse(_ text: String) -> Date? {
        switch text {
        case "infinity": return .distantFuture
        case "-infinity": return .distantPast
        default: break
        }
        var scanner = ByteScanner(text)
        guard let year = scanner.number(digits: 4...9), scanner.skip("-"),
              let month = scanner.number(digits: 2...2), scanner.skip("-"),
              let day = scanner.number(digits: 2...2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var secondOfDay: Int64 = 0
        var micros: Int64 = 0
        var offsetSeconds: Int64 = 0
        if scanner.skip(" ") || scanner.skip("T") {
            guard let hour = scanner.number(digits: 2...2), scanner.skip(":"),
                  let minute = scanner.number(digits: 2...2), scanner.skip(":"),
                  let second = scanner.number(digits: 2...2),
                  hour <= 24, minute < 60, second <= 60
            else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if scanner.skip(".") {
                guard let (value, count) = scanner.fraction() else { return nil }
                micros = value
                for _ in count..<6 { micros *= 10 }
            }
            if scanner.skip("Z") {
                offsetSeconds = 0
            } else if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2...2) else { return nil }
                var offset = hours * 3600
                if scanner.skip(":") {
                    guard let minutes = scanner.number(digits: 2...2) else { return nil }
                    offset += minutes * 60
                    if scanner.skip(":") {
                        guard let seconds = scanner.number(digits: 2...2) else { return nil }
                        offset += seconds
                    }
                }
                offsetSeconds = sign * offset
            }
        }
        let bc = scanner.skip(" BC")
        guard scanner.isAtEnd else { return nil }
        let days = days(fromCivil: bc ? 1 - year : year, month: month, day: day)
        let seconds = days * secondsPerDay + secondOfDay - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }

    // Howard Hinnant's days_from_civil / civil_from_days (public domain algorithms).
    static func days(fromCivil year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A cursor over ASCII text for the parser above.
private struct ByteScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skip(_ literal: String) -> Bool {
        let literal = Array(literal.utf8)
        guard bytes.count - index >= literal.count, bytes[index..<index + literal.count].elementsEqual(literal) else {
            return false
        }
        index += literal.count
        return true
    }

    mutating func number(digits allowed: ClosedRange<Int>) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, count < allowed.upperBound, let digit = digit(bytes[index]) {
            value = value * 10 + digit
            count += 1
            index += 1
        }
        return allowed.contains(count) ? value : nil
    }

    /// Up to six digits of a fraction; further digits are dropped (PostgreSQL never sends them).
    mutating func fraction() -> (value: Int64, digits: Int)? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, let digit = digit(bytes[index]) {
            if count < 6 {
                value = value * 10 + digit
                count += 1
            }
            index += 1
        }
        return count > 0 ? (value, count) : nil
    }

    mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    private func digit(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }
}
