/// Live Activity update coalescing (app field `live_activity_update_interval_seconds`): an
/// `update` to one device's activity goes at once when that activity got no update push in the
/// last interval; otherwise it waits for the interval to end, and then only the newest waiting
/// update goes. Every update folded into a later one is `coalesced`, carried by the push that
/// carried a newer state. An `end` is never held and drops the updates still waiting (carried by
/// the end). Per activity row: two devices holding one activity id are independent. Pure.
package enum LiveActivityCoalescing {
    package static let intervalRange: ClosedRange<Int64> = 0...60
    package static let defaultInterval = 5

    /// What the server knows of one device's activity, from PostgreSQL.
    package struct Activity: Sendable, Equatable {
        /// The last update slot claimed for it.
        package var slot: PushSlot?
        /// The newest update waiting for it (due now), across every job and worker.
        package var newestPending: PushRank?
        /// The `end` queued for it, if any.
        package var end: PushRank?

        package init(slot: PushSlot? = nil, newestPending: PushRank? = nil, end: PushRank? = nil) {
            self.slot = slot
            self.newestPending = newestPending
            self.end = end
        }
    }

    /// `update`: the push's `aps.timestamp` and message; `attempts` including this one (a retry
    /// older than the slot's holder is `superseded`, as any older retry after a newer push).
    package static func decide(update: PushRank, attempts: Int, intervalSeconds: Int, activity: Activity,
                              now: Double) -> PushIntervalDecision {
        guard intervalSeconds > 0 else { return .send(claim: nil) }
        // An end carries the final state: every update older than it is dropped.
        if let end = activity.end, update < end { return .folded(carriedBy: end.messageID, claim: nil) }
        return PushIntervalGate.decide(update, isRetry: attempts > 1, interval: Double(intervalSeconds), slot: activity.slot,
                                       newestPending: activity.newestPending, now: now)
    }

    /// What the planner records instead of a push, or nil to send it.
    package static func refusal(_ decision: PushIntervalDecision) -> DeliveryPlanner.Refusal? {
        switch decision {
        case .send: nil
        case .folded(let carrier, _): .suppressed(.coalesced, carriedBy: carrier)
        case .wait(let until): .deferred(until: until)
        case .superseded: .superseded
        }
    }
}
