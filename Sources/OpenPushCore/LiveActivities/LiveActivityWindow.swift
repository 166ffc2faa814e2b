/// The three pushes a Live Activity receives.
public enum LiveActivityEvent: String, Sendable, CaseIterable {
    case start, update, end
}

/// Which registered activities a push may select. From `started_at`: 8 hours in which `start`
/// and `update` select it, then 4 more in which only `end` does; after 12 hours nothing does.
/// A row ended for any reason is never selected again. Time is a parameter (unix seconds).
public enum LiveActivityWindow {
    public static let activeSeconds: Double = 8 * 3600
    public static let staleSeconds: Double = 4 * 3600
    public static var totalSeconds: Double { activeSeconds + staleSeconds }

    /// How long after `started_at` an `event` push may still select the row.
    public static func span(for event: LiveActivityEvent) -> Double {
        switch event {
        case .start, .update: activeSeconds
        case .end: totalSeconds
        }
    }

    public static func selects(_ event: LiveActivityEvent, startedAt: Double, endedAt: Double?, now: Double) -> Bool {
        endedAt == nil && now < startedAt + span(for: event)
    }

    /// The end of the active window, reported to devices as `active_until`.
    public static func activeUntil(startedAt: Double) -> Double { startedAt + activeSeconds }

    /// A requested stale date is clamped to the active window; none means the window's end.
    public static func staleAt(requested: Double?, startedAt: Double) -> Double {
        min(requested ?? .infinity, activeUntil(startedAt: startedAt))
    }

    /// The `note` the register route returns.
    public static let note = "updates are accepted for 8h from started_at, an end for 4h after that"
}
