/// `send_after` given as a date, in the forms OneSignal's clients send and its documentation
/// lists. Read by hand (no formatter, no locale), so the answer depends on the text alone:
///
/// - ISO 8601 / RFC 3339: `2015-09-24T14:00:00Z`, `2015-09-24T14:00:00.123-07:00`, and what
///   Python's `datetime.isoformat()` writes: `2015-09-24T14:00:00+00:00`,
///   `2015-09-24T14:00:00.123456+00:00`, and `2015-09-24T14:00:00` for a naive datetime.
/// - `2015-09-24 14:00:00 GMT-0700`
/// - `Thu Sep 24 2015 14:00:00 GMT-0700 (PDT)` (JavaScript's `Date.toString()`)
/// - `Sept 24 2015 14:00:00 GMT-0700`
/// - `September 24th 2015, 2:00:00 pm UTC-07:00`
///
/// Month names are full or abbreviated (and `Sept`), in any case; a leading weekday is accepted
/// and not checked; a day may carry its ordinal suffix; a trailing `(PDT)` is a comment.
package enum SendAfterDate {
    package static let message = "send_after must be a unix timestamp or a date such as 2015-09-24T14:00:00Z, "
        + "2015-09-24 14:00:00 GMT-0700, Thu Sep 24 2015 14:00:00 GMT-0700 (PDT) "
        + "or September 24th 2015, 2:00:00 pm UTC-07:00"

    /// The instant as unix seconds, fractions kept; nil unless the text is one of the forms and
    /// names a real date and time.
    package static func unixSeconds(_ text: String) -> Double? {
        var scanner = DateScanner(text)
        scanner.skipSpaces()
        var probe = scanner
        let parts = probe.number(digits: 4...4) != nil ? numericForm(&scanner) : writtenForm(&scanner)
        guard let parts else { return nil }
        scanner.skipSpaces()
        guard scanner.atEnd else { return nil }
        return parts.unixSeconds
    }

    /// The fields of a date before they are checked.
    struct Parts {
        var year: Int64, month: Int64, day: Int64
        var hour: Int64, minute: Int64, second: Int64, fraction: Double
        /// Seconds east of UTC.
        var offset: Int64

        var unixSeconds: Double? {
            guard (1...12).contains(month), (1...SendAfterDate.days(inMonth: month, year: year)).contains(day),
                  (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
                  abs(offset) <= 14 * 3600 else { return nil }
            let days = UTCDay.daysSinceEpoch(year: year, month: month, day: day)
            return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        }
    }

    // MARK: forms

    /// `2015-09-24T14:00:00.123+00:00`, `2015-09-24 14:00:00 GMT-0700`.
    static func numericForm(_ scanner: inout DateScanner) -> Parts? {
        guard let year = scanner.number(digits: 4...4), scanner.take("-"),
              let month = scanner.number(digits: 2...2), scanner.take("-"),
              let day = scanner.number(digits: 2...2) else { return nil }
        guard scanner.take("T") || scanner.skipSpaces() else { return nil }
        guard let time = time(&scanner, twelveHour: false) else { return nil }
        scanner.skipSpaces()
        // No zone at all is what Python's isoformat() writes for a naive datetime; OneSignal's
        // clients mean UTC by it, and a server has no better guess at the sender's local time.
        let offset: Int64
        if scanner.atEnd {
            offset = 0
        } else {
            guard let zone = zone(&scanner) else { return nil }
            offset = zone
            skipComment(&scanner)
        }
        return Parts(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second,
                     fraction: time.fraction, offset: offset)
    }

    /// `Thu Sep 24 2015 14:00:00 GMT-0700 (PDT)`, `September 24th 2015, 2:00:00 pm UTC-07:00`.
    /// The zone is required: these are written for people, and without one they mean a local time.
    static func writtenForm(_ scanner: inout DateScanner) -> Parts? {
        guard var name = scanner.word() else { return nil }
        if weekdays.contains(name) {
            _ = scanner.take(",")
            scanner.skipSpaces()
            guard let next = scanner.word() else { return nil }
            name = next
        }
        guard let month = months[name], scanner.skipSpaces(), let day = scanner.number(digits: 1...2) else { return nil }
        var probe = scanner
        if let suffix = probe.word() {
            guard suffix == ordinalSuffix(day) else { return nil }
            scanner = probe
        }
        _ = scanner.take(",")
        guard scanner.skipSpaces(), let year = scanner.number(digits: 4...4) else { return nil }
        _ = scanner.take(",")
        guard scanner.skipSpaces(), let time = time(&scanner, twelveHour: true) else { return nil }
        scanner.skipSpaces()
        guard let offset = zone(&scanner) else { return nil }
        skipComment(&scanner)
        return Parts(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second,
                     fraction: time.fraction, offset: offset)
    }

    // MARK: pieces

    /// `14:00`, `14:00:00`, `14:00:00.123456`; where `twelveHour`, also `2:00:00 pm` (1–12 with am/pm).
    static func time(_ scanner: inout DateScanner, twelveHour: Bool)
        -> (hour: Int64, minute: Int64, second: Int64, fraction: Double)? {
        guard var hour = scanner.number(digits: 1...2), scanner.take(":"),
              let minute = scanner.number(digits: 2...2) else { return nil }
        var second: Int64 = 0
        var fraction = 0.0
        if scanner.take(":") {
            guard let whole = scanner.number(digits: 2...2) else { return nil }
            second = whole
            if scanner.take(".") {
                guard let part = scanner.fraction() else { return nil }
                fraction = part
            }
        }
        if twelveHour {
            var probe = scanner
            probe.skipSpaces()
            if let marker = probe.word(), marker == "am" || marker == "pm" {
                guard (1...12).contains(hour) else { return nil }
                hour = hour % 12 + (marker == "pm" ? 12 : 0)
                scanner = probe
            }
        }
        return (hour, minute, second, fraction)
    }

    /// Seconds east of UTC: `Z`, `+07:00`, `-0700`, `+07`, `GMT`, `UTC`, `GMT-0700`, `UTC-07:00`.
    static func zone(_ scanner: inout DateScanner) -> Int64? {
        if scanner.take("Z") { return 0 }
        var probe = scanner
        if let name = probe.word() {
            guard name == "gmt" || name == "utc" else { return nil }
            scanner = probe
            probe = scanner
            if let offset = signedOffset(&probe) {
                scanner = probe
                return offset
            }
            return 0
        }
        return signedOffset(&scanner)
    }

    /// `+07:00`, `-0700`, `+07`, `-7`. The ±14:00 bound is checked with the rest of the date.
    static func signedOffset(_ scanner: inout DateScanner) -> Int64? {
        let sign: Int64
        if scanner.take("+") {
            sign = 1
        } else if scanner.take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = scanner.number(digits: 1...2) else { return nil }
        var minutes: Int64 = 0
        if scanner.take(":") {
            guard let value = scanner.number(digits: 2...2) else { return nil }
            minutes = value
        } else {
            var probe = scanner
            if let value = probe.number(digits: 2...2) {
                minutes = value
                scanner = probe
            }
        }
        guard minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    /// A trailing zone name such as `(PDT)` only repeats the offset.
    static func skipComment(_ scanner: inout DateScanner) {
        var probe = scanner
        probe.skipSpaces()
        if probe.comment() { scanner = probe }
    }

    static func ordinalSuffix(_ day: Int64) -> String {
        if (11...13).contains(day % 100) { return "th" }
        switch day % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }

    static func days(inMonth month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static let months: [String: Int64] = {
        let names = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"]
        var table: [String: Int64] = ["sept": 9]
        for (index, name) in names.enumerated() {
            table[name] = Int64(index + 1)
            table[String(name.prefix(3))] = Int64(index + 1)
        }
        return table
    }()

    static let weekdays: Set<String> = {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        return Set(names + names.map { String($0.prefix(3)) })
    }()
}
