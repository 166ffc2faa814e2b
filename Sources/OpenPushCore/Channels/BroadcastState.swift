/// A channel broadcast's state on its row (`live_activity_broadcasts.state`), which the
/// notification view shows: waiting for (another) attempt, or how it ended.
package enum BroadcastState: String, Sendable, Hashable, CaseIterable {
    case queued
    case accepted
    case error
    /// The message was cancelled before the broadcast went out.
    case cancelled

    /// The row's state for a broadcast whose delivery ended `state`; nil for the states a
    /// broadcast never ends in (nothing suppresses or supersedes it).
    package init?(finished state: DeliveryState) {
        switch state {
        case .accepted: self = .accepted
        case .error: self = .error
        case .cancelled: self = .cancelled
        case .suppressed, .superseded: return nil
        }
    }
}
