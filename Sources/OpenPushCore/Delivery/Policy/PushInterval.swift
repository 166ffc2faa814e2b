/// Which of two pushes to one device carries the newer state: Live Activity updates by their
/// `aps.timestamp` (fixed at enqueue, strictly increasing per activity), widget reloads by when
/// their message became due; ties by message id.
package struct PushRank: Sendable, Hashable, Comparable {
    package var order: Int64
    package var messageID: String

    package init(order: Int64, messageID: String) {
        self.order = order
        self.messageID = messageID
    }

    package static func < (lhs: PushRank, rhs: PushRank) -> Bool {
        (lhs.order, lhs.messageID) < (rhs.order, rhs.messageID)
    }
}

/// The one push a device's activity (or its widgets) gets in an interval: when the interval
/// began (the slot was claimed) and which push holds it.
package struct PushSlot: Sendable, Equatable {
    package var claimedAt: Double
    package var holder: PushRank

    package init(claimedAt: Double, holder: PushRank) {
        self.claimedAt = claimedAt
        self.holder = holder
    }
}

/// What an interval rule (`LiveActivityCoalescing`, `WidgetThrottle`) decides for one push to
/// one device. The server records the claim (in PostgreSQL, under the slot's row lock) in the
/// transaction that decided it, so two workers never both send in one interval.
package enum PushIntervalDecision: Sendable, Equatable {
    /// Send now. `claim`: the slot to record for it (nil: the rule is off, or it holds the slot already).
    case send(claim: PushSlot?)
    /// Not sent: a newer push carries its state. `claim`: a slot to record for that newer push,
    /// when the interval is open and that push is waiting to go (it is sent next, at once).
    case folded(carriedBy: String, claim: PushSlot?)
    /// The interval is taken: planned again when it ends.
    case wait(until: Double)
    /// A retry of a push older than the one holding the slot: sending it would roll the device back.
    case superseded
}

/// The gate both interval rules share: at most one push per interval, the newest waiting one
/// when the interval ends, every older one folded into a newer one. Pure: `now` is passed in.
enum PushIntervalGate {
    /// `slot`: the device's last claimed slot; `newestPending`: the newest push of the same kind
    /// waiting (due now) for the same device, this one included or not.
    static func decide(_ push: PushRank, isRetry: Bool, interval: Double, slot: PushSlot?, newestPending: PushRank?,
                       now: Double) -> PushIntervalDecision {
        guard interval > 0 else { return .send(claim: nil) }
        if let slot {
            // The slot is this push's: claimed by it, or by an older push folded into it. A retry of
            // it (its attempt failed) gives the slot to a newer push waiting, rather than send
            // an older state again.
            if slot.holder == push {
                if isRetry, let newest = newestPending, push < newest {
                    return .folded(carriedBy: newest.messageID, claim: PushSlot(claimedAt: now, holder: newest))
                }
                return .send(claim: nil)
            }
            // Something newer went (or goes) already.
            if push < slot.holder { return isRetry ? .superseded : .folded(carriedBy: slot.holder.messageID, claim: nil) }
            let ends = slot.claimedAt + interval
            if now < ends { return .wait(until: ends) }
        }
        // The interval is open: the newest waiting push takes it.
        if let newest = newestPending, push < newest {
            return .folded(carriedBy: newest.messageID, claim: PushSlot(claimedAt: now, holder: newest))
        }
        return .send(claim: PushSlot(claimedAt: now, holder: push))
    }
}
