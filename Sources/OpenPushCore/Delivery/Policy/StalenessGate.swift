/// The staleness gate: an alert whose event is older than its limit when its turn to be sent
/// comes is not sent (recorded `suppressed`, reason `stale`), so a backlog replayed after an
/// outage never fires old alerts. Pure: `now` is passed in, and it is the planning time of every
/// attempt — first sends, retries, deferred and scheduled sends alike.
package enum StalenessGate {
    /// The longest limit, message or app: 30 days.
    package static let longestLimit: Int64 = 30 * 86_400

    /// The limit in seconds: the message's `stale_after_seconds`, else the app's
    /// `stale_alert_seconds` (0 = off); `nil` when there is none.
    package static func limit(message: Int?, appDefault: Int) -> Int? {
        if let message, message > 0 { return message }
        return appDefault > 0 ? appDefault : nil
    }

    /// Whether an event at `eventAt` is past `limit` at `now`. An event in the future (a sender's
    /// clock ahead of ours) is not stale until it has aged past the limit; an event exactly at
    /// the limit still goes.
    package static func isStale(eventAt: Double?, limit: Int?, now: Double) -> Bool {
        guard let eventAt, let limit else { return false }
        return now - eventAt > Double(limit)
    }

    /// The gate for one notification: only alerts are held back, and only when they carry
    /// `event_at`.
    package static func isStale(_ send: NotificationSend, appDefault: Int, now: Double) -> Bool {
        guard send.kind == .alert else { return false }
        return isStale(eventAt: send.gates.eventAt, limit: limit(message: send.gates.staleAfterSeconds, appDefault: appDefault),
                       now: now)
    }
}
