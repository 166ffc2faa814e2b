/// Which daily partitions of `deliveries` one maintenance pass creates and drops.
///
/// Records go to the partition of the UTC day they were written (`deliveries_YYYYMMDD`), or to
/// `deliveries_default` when that partition is missing. The pass keeps partitions ready a few
/// days ahead, so in normal operation nothing lands in the default one, and drops a day once
/// every record in it is older than the retention: records are kept at least `retentionDays`
/// and at most a day (plus a maintenance interval) longer.
package struct DeliveryPartitionPlan: Sendable, Equatable {
    /// Days whose partition is missing, oldest first. Days that still have records in the
    /// default partition are among them, whatever their age: creating the partition moves
    /// those records into it, and a day past the retention is then dropped like any other.
    package var create: [UTCDay]
    /// Days whose partition goes, oldest first (including any just created).
    package var drop: [UTCDay]

    package init(create: [UTCDay], drop: [UTCDay]) {
        self.create = create
        self.drop = drop
    }

    package static let partitionPrefix = "deliveries_"
    /// Partitions exist from today through this many days ahead (clock skew, a paused loop).
    package static let daysAhead = 3
    package static let defaultRetentionDays = 30
    package static let retentionDaysRange = 1...3650

    package static func partitionName(_ day: UTCDay) -> String { partitionPrefix + day.yyyymmdd }

    /// The day a partition named `deliveries_YYYYMMDD` holds; nil for any other name, so
    /// `deliveries_default` and tables someone else added are never touched.
    package static func day(ofPartition name: String) -> UTCDay? {
        guard name.hasPrefix(partitionPrefix) else { return nil }
        return UTCDay(yyyymmdd: String(name.dropFirst(partitionPrefix.count)))
    }

    /// The pass for `today` (UTC), given the partitions that exist (`partitions`, by name) and
    /// the days that have records in the default partition.
    package static func make(today: UTCDay, retentionDays: Int, partitions: [String],
                            daysInDefault: [UTCDay] = []) -> DeliveryPartitionPlan {
        precondition(retentionDaysRange.contains(retentionDays), "retention outside \(retentionDaysRange)")
        let existing = Set(partitions.compactMap(day(ofPartition:)))
        let wanted = Set((0...daysAhead).map { today + $0 }).union(daysInDefault)
        let create = wanted.subtracting(existing)
        // A day's records are all older than the retention once the day after it is.
        let oldestKept = today - retentionDays
        let drop = existing.union(create).filter { $0 < oldestKept }
        return DeliveryPartitionPlan(create: create.sorted(), drop: drop.sorted())
    }
}
