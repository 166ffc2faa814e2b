/// The three pushes a Live Activity receives.
package enum LiveActivityEvent: String, Sendable, CaseIterable {
    case start, update, end
}

/// Which registered activities a push may select. From `started_at`: 8 hours in which `start`
/// and `update` select it, then 4 more in which only `end` does; after 12 hours nothing does.
/// A row ended for any reason is never selected again. Time is a parameter (unix seconds).
package enum LiveActivityWindow {
    package static let activeSeconds: Double = 8 * 3600
    package static let staleSeconds: Double = 4 * 3600
    package static var totalSeconds: Double { activeSeconds + staleSeconds }

    /// How long after `started_at` an `event` push may still select the row.
    package static func span(for event: LiveActivityEvent) -> Double {
        switch event {
        case .start, .update: activeSeconds
        case .end: totalSeconds
        }
    }

    package static func selects(_ event: LiveActivityEvent, startedAt: Double, endedAt: Double?, now: Double) -> Bool {
        endedAt == nil && now < startedAt + span(for: event)
    }

    /// The end of the active window, reported to devices as `active_until`.
    package static func activeUntil(startedAt: Double) -> Double { startedAt + activeSeconds }

    /// A requested stale date is clamped to the active window; none means the window's end.
    package static func staleAt(requested: Double?, startedAt: Double) -> Double {
        min(requested ?? .infinity, activeUntil(startedAt: startedAt))
    }

    /// The `note` the register route returns.
    package static let note = "updates are accepted for 8h from started_at, an end for 4h after that"
}
