extension NotificationSend {
    /// Whether the send names its audience outright and reaches it now: no later `send_after`,
    /// no per-device delivery time and no throttle. Such a send's recipients are known when it
    /// is made, so its jobs can be written with it rather than by a worker's expansion.
    package func isImmediateAndNamed(now: Double) -> Bool {
        guard schedule.isImmediate, (sendAfter ?? now) <= now else { return false }
        return namedTargets != nil
    }

    /// How many devices or aliases the targeting names (nil for segments and filters): a bound
    /// on the audience only when each alias reaches one device, so a hint, not a count.
    package var namedTargets: Int? {
        switch targeting {
        case .aliases(let targets): targets.reduce(0) { $0 + $1.values.count }
        case .subscriptionIDs(let ids): ids.count
        case .segments, .filters: nil
        }
    }
}
