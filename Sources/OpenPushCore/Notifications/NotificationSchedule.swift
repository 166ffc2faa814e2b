/// When a notification reaches its devices, from OneSignal's `delayed_option`,
/// `delivery_time_of_day` and `throttle_rate_per_minute`. The default sends to everyone at
/// `send_after` as fast as the workers go.
public struct NotificationSchedule: Sendable, Equatable {
    /// A per-device delivery time within the 24 hours after the message's send time.
    public enum Delay: Sendable, Equatable {
        /// `delayed_option: "timezone"`: this local time of day (seconds after midnight) in the
        /// device's own time zone.
        case localTime(secondsAfterMidnight: Int)
        /// `delayed_option: "last-active"`: the time of day of the device's last session.
        case lastActive
    }

    public var delay: Delay?
    /// Pushes per minute at most for this message; nil when unthrottled (`0` or absent).
    public var throttleRatePerMinute: Int?

    public init(delay: Delay? = nil, throttleRatePerMinute: Int? = nil) {
        self.delay = delay
        self.throttleRatePerMinute = throttleRatePerMinute
    }

    /// Everyone at once: no per-device time, no throttle.
    public static let immediate = NotificationSchedule()

    public var isImmediate: Bool { self == .immediate }
}
