/// The time buckets of a throughput series: `step` seconds wide, aligned to multiples of `step`
/// since the unix epoch (so two reads a moment apart share their buckets), the last one holding
/// `now`, and enough of them to cover `window`.
package struct StatsBuckets: Sendable, Equatable {
    /// One bucket's figures.
    package struct Bucket: Sendable, Equatable {
        /// Its start, unix seconds.
        package var at: Int64
        package var accepted: Int64
        package var failed: Int64

        package init(at: Int64, accepted: Int64 = 0, failed: Int64 = 0) {
            self.at = at
            self.accepted = accepted
            self.failed = failed
        }
    }

    package var step: Int64
    /// The first bucket's start, unix seconds.
    package var first: Int64
    package var count: Int64

    /// The end of the last bucket (exclusive): `first + count * step`.
    package var end: Int64 { first + count * step }

    package init(step: Int64, first: Int64, count: Int64) {
        self.step = step
        self.first = first
        self.count = count
    }

    package init(now: Double, window: Int64, step: Int64) {
        let count = Self.count(window: window, step: step)
        let last = Self.floor(now, to: step)
        self.init(step: step, first: last - (count - 1) * step, count: count)
    }

    /// How many buckets cover `window`: a partial one counts as a whole.
    package static func count(window: Int64, step: Int64) -> Int64 {
        max(1, (window + step - 1) / step)
    }

    /// The start of the bucket holding `time`.
    package static func floor(_ time: Double, to step: Int64) -> Int64 {
        let seconds = Int64(time.rounded(.down))
        let remainder = seconds % step
        return remainder >= 0 ? seconds - remainder : seconds - remainder - step
    }

    /// Whole seconds at or after `time`.
    package static func ceiling(_ time: Double) -> Int64 {
        Int64(time.rounded(.up))
    }

    /// Every bucket, in order, with the figures of `counted` (keyed by bucket start) and 0 where
    /// nothing was counted, so a chart is continuous. Figures outside the buckets are dropped.
    package func fill(_ counted: [Int64: (accepted: Int64, failed: Int64)]) -> [Bucket] {
        (0..<count).map { index in
            let at = first + index * step
            let figures = counted[at]
            return Bucket(at: at, accepted: figures?.accepted ?? 0, failed: figures?.failed ?? 0)
        }
    }

    /// Per bucket start, the figures of every push service summed.
    package static func sum<Service: Hashable>(_ byService: [Service: [Int64: (accepted: Int64, failed: Int64)]])
        -> [Int64: (accepted: Int64, failed: Int64)]
    {
        var total: [Int64: (accepted: Int64, failed: Int64)] = [:]
        for counted in byService.values {
            for (at, figures) in counted {
                let sum = total[at] ?? (0, 0)
                total[at] = (sum.accepted + figures.accepted, sum.failed + figures.failed)
            }
        }
        return total
    }
}
