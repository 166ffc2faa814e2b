/// A device's quiet hours: a daily window of its local wall clock, `start` inclusive, `end`
/// exclusive, in minutes after midnight. A window whose start is after its end wraps midnight
/// (`22:00`–`07:00`); start and end are never equal (that window would be empty or all day).
package struct QuietHoursWindow: Sendable, Hashable {
    package static let minutesPerDay = 24 * 60

    /// Minutes after local midnight, 0...1439.
    package let start: Int
    package let end: Int

    /// Nil unless both are within a day and they differ.
    package init?(start: Int, end: Int) {
        guard (0..<Self.minutesPerDay).contains(start), (0..<Self.minutesPerDay).contains(end), start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// Whether the window wraps midnight.
    package var wrapsMidnight: Bool { start > end }

    /// `"HH:MM"`, 24-hour, two digits each: `"07:00"`, `"22:30"`. Nil for anything else.
    package static func minutes(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
        func digit(_ byte: UInt8) -> Int? {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
        }
        guard let h1 = digit(bytes[0]), let h2 = digit(bytes[1]), let m1 = digit(bytes[3]), let m2 = digit(bytes[4]) else { return nil }
        let hours = h1 * 10 + h2
        let minutes = m1 * 10 + m2
        guard hours < 24, minutes < 60 else { return nil }
        return hours * 60 + minutes
    }

    /// The `"HH:MM"` spelling of minutes after midnight.
    package static func text(_ minutes: Int) -> String {
        let hours = minutes / 60
        let rest = minutes % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }

    /// `{"start": "HH:MM", "end": "HH:MM"}`, as the subscription views show it.
    package var json: JSONValue { ["start": .string(Self.text(start)), "end": .string(Self.text(end))] }
}

/// Whether a device is in its quiet hours now, and when they end. Pure: the device's local time
/// of day at `now` is passed in (PostgreSQL reads it from its time zone database when it loads
/// the delivery's context), and so, where the caller knows it, is the instant the device's clock
/// next reads the window's end — which on a day the clocks change is not `now` plus the wall-clock
/// distance.
package enum QuietHours {
    package static let secondsPerDay: Double = 86_400

    package enum State: Sendable, Equatable {
        /// Not in quiet hours.
        case open
        /// In quiet hours until `until` (unix seconds): the first instant the window is over.
        case quiet(until: Double)
    }

    /// - Parameters:
    ///   - localSecondsOfDay: the device's wall clock at `now`, seconds after local midnight
    ///     (fractions allowed; taken modulo a day).
    ///   - endsAt: the first instant at or after `now` at which the device's wall clock reads the
    ///     window's end, when the caller computed it in the device's zone (DST-correct); without
    ///     it, `now` plus the wall-clock distance to the end.
    package static func state(_ window: QuietHoursWindow, localSecondsOfDay: Double, now: Double,
                             endsAt: Double? = nil) -> State {
        let local = wrapped(localSecondsOfDay)
        let start = Double(window.start * 60)
        let end = Double(window.end * 60)
        let quiet = window.wrapsMidnight ? (local >= start || local < end) : (local >= start && local < end)
        guard quiet else { return .open }
        if let endsAt, endsAt > now { return .quiet(until: endsAt) }
        return .quiet(until: now + wrapped(end - local))
    }

    static func wrapped(_ seconds: Double) -> Double {
        let rest = seconds.truncatingRemainder(dividingBy: secondsPerDay)
        return rest < 0 ? rest + secondsPerDay : rest
    }
}
