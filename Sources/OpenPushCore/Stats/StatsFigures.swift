/// Delivery figures over a window, as `GET /apps/{app_id}/stats` shows them: the records of
/// every push service summed, or of one.
package struct StatsFigures: Sendable, Equatable {
    package var accepted: Int64 = 0
    /// Records in state `error`, with or without a reason.
    package var failed: Int64 = 0
    package var suppressed: Int64 = 0
    /// Records with a tap.
    package var clicked: Int64 = 0
    /// `error` records with a reason: reason → records.
    package var errorsByReason: [String: Int64] = [:]

    package init(accepted: Int64 = 0, failed: Int64 = 0, suppressed: Int64 = 0, clicked: Int64 = 0,
                 errorsByReason: [String: Int64] = [:]) {
        self.accepted = accepted
        self.failed = failed
        self.suppressed = suppressed
        self.clicked = clicked
        self.errorsByReason = errorsByReason
    }

    /// Pushes that reached their push service's answer: accepted or failed.
    package var sent: Int64 { accepted + failed }

    /// The reasons, most frequent first (then by name, so the order is stable).
    package var reasonsByFrequency: [(reason: String, count: Int64)] {
        errorsByReason.map { (reason: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.reason < $1.reason }
    }

    package mutating func add(_ other: StatsFigures) {
        accepted += other.accepted
        failed += other.failed
        suppressed += other.suppressed
        clicked += other.clicked
        errorsByReason.merge(other.errorsByReason, uniquingKeysWith: +)
    }

    package static func sum<Figures: Sequence>(_ figures: Figures) -> StatsFigures where Figures.Element == StatsFigures {
        var total = StatsFigures()
        for each in figures { total.add(each) }
        return total
    }
}
