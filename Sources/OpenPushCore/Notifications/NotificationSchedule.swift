/// When a notification reaches its devices, from OneSignal's `delayed_option`,
/// `delivery_time_of_day` and `throttle_rate_per_minute`. The default sends to everyone at
/// `send_after` as fast as the workers go.
package struct NotificationSchedule: Sendable, Equatable {
    /// A per-device delivery time within the 24 hours after the message's send time.
    package enum Delay: Sendable, Equatable {
        /// `delayed_option: "timezone"`: this local time of day (seconds after midnight) in the
        /// device's own time zone.
        case localTime(secondsAfterMidnight: Int)
        /// `delayed_option: "last-active"`: the time of day of the device's last session.
        case lastActive
    }

    package var delay: Delay?
    /// Pushes per minute at most for this message; nil when unthrottled (`0` or absent).
    package var throttleRatePerMinute: Int?

    package init(delay: Delay? = nil, throttleRatePerMinute: Int? = nil) {
        self.delay = delay
        self.throttleRatePerMinute = throttleRatePerMinute
    }

    /// Everyone at once: no per-device time, no throttle.
    package static let immediate = NotificationSchedule()

    package var isImmediate: Bool { self == .immediate }
}
