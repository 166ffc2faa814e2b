/// `delivery_time_of_day` as OneSignal documents it — `9:00AM`, `9:00 AM`, `21:45`, `9:45:30` —
/// read by hand, so the answer depends on the text alone: hours and minutes (two digits), seconds
/// optional, then either nothing (a 24-hour clock, 0–23) or `AM`/`PM` in any case, with or
/// without a space (a 12-hour clock, 1–12).
package enum TimeOfDay {
    package static let message =
        "delivery_time_of_day must be a time of day such as 9:00AM, 9:00 AM, 21:45 or 9:45:30"

    /// Seconds after midnight (0–86399), or nil unless the text is one of the forms.
    package static func secondsAfterMidnight(_ text: String) -> Int? {
        var scanner = DateScanner(text)
        scanner.skipSpaces()
        guard var hour = scanner.number(digits: 1...2), scanner.take(":"),
              let minute = scanner.number(digits: 2...2), minute < 60 else { return nil }
        var second: Int64 = 0
        if scanner.take(":") {
            guard let value = scanner.number(digits: 2...2), value < 60 else { return nil }
            second = value
        }
        scanner.skipSpaces()
        if let marker = scanner.word() {
            guard marker == "am" || marker == "pm", (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (marker == "pm" ? 12 : 0)
            scanner.skipSpaces()
        }
        guard scanner.atEnd, hour < 24 else { return nil }
        return Int(hour * 3600 + minute * 60 + second)
    }
}
