/// What a batch of delivery records adds to its message's counts (the `counted_*` columns of
/// `messages`, which `GET /notifications/{id}` reads): tallied from the records a job appends,
/// so its completion adds them in one statement instead of the view counting every record.
package struct DeliveryTally: Sendable, Equatable {
    /// Reasons that mean the device can no longer be reached: OneSignal counts these as `failed`
    /// ("unsubscribed"); every other error is `errored`.
    package static let unreachableReasons = ["Unregistered", "BadDeviceToken", "ExpiredToken", "DeviceTokenNotForTopic",
                                            "Unsubscribed", "ActivityEnded"]

    package var successful: Int64 = 0
    package var failed: Int64 = 0
    /// An `error` with no reason is in neither `failed` nor `errored`, nor in `errorsByReason`,
    /// as the view always counted it.
    package var errored: Int64 = 0
    package var cancelled: Int64 = 0
    package var errorsByReason: [String: Int64] = [:]
    /// A `suppressed` record's reason (a `SuppressionReason`) → records.
    package var suppressedByReason: [String: Int64] = [:]
    /// Records of any state, `superseded` among them.
    package var records: Int64 = 0
    /// Every `error` record, with or without a reason, and every `suppressed` one: what the
    /// stats rollup (`delivery_stats`) counts as `failed` and `suppressed`.
    package var errors: Int64 = 0
    package var suppressed: Int64 = 0

    package init() {}

    package init<Records: Sequence>(_ records: Records) where Records.Element == (state: DeliveryState, reason: String?) {
        for record in records { add(state: record.state, reason: record.reason) }
    }

    package var isEmpty: Bool { records == 0 }

    package mutating func add(state: DeliveryState, reason: String?) {
        records += 1
        switch state {
        case .accepted:
            successful += 1
        case .error:
            errors += 1
            guard let reason else { return }
            if Self.unreachableReasons.contains(reason) { failed += 1 } else { errored += 1 }
            errorsByReason[reason, default: 0] += 1
        case .cancelled:
            cancelled += 1
        case .suppressed:
            suppressed += 1
            guard let reason else { return }
            suppressedByReason[reason, default: 0] += 1
        case .superseded:
            break
        }
    }

    /// Adds another batch's tally: a completion of several jobs adds them to their app's rollup once.
    package mutating func add(_ other: DeliveryTally) {
        successful += other.successful
        failed += other.failed
        errored += other.errored
        cancelled += other.cancelled
        errorsByReason.merge(other.errorsByReason, uniquingKeysWith: +)
        suppressedByReason.merge(other.suppressedByReason, uniquingKeysWith: +)
        records += other.records
        errors += other.errors
        suppressed += other.suppressed
    }
}
