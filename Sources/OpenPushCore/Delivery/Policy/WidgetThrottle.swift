/// The widget push throttle (app field `widget_push_interval_seconds`): a device gets at most one
/// WidgetKit push per interval. When more come in the interval, exactly one more — the newest —
/// goes when it ends (the trailing push), and the others are `throttled`, carried by it, so the
/// last change is never lost. Per device. Pure.
package enum WidgetThrottle {
    package static let intervalRange: ClosedRange<Int64> = 0...300
    package static let defaultInterval = 15

    /// `reload`: the push's rank (when its message became due, and the message); `slot`: the
    /// device's last claimed widget slot; `newestPending`: the newest widget push waiting for it.
    package static func decide(reload: PushRank, intervalSeconds: Int, slot: PushSlot?, newestPending: PushRank?,
                              now: Double) -> PushIntervalDecision {
        // A widget reload carries no state, so an older retry is simply folded too.
        PushIntervalGate.decide(reload, isRetry: false, interval: Double(intervalSeconds), slot: slot,
                                newestPending: newestPending, now: now)
    }

    package static func refusal(_ decision: PushIntervalDecision) -> DeliveryPlanner.Refusal? {
        switch decision {
        case .send: nil
        case .folded(let carrier, _): .suppressed(.throttled, carriedBy: carrier)
        case .wait(let until): .deferred(until: until)
        case .superseded: .suppressed(.throttled, carriedBy: nil)
        }
    }
}
