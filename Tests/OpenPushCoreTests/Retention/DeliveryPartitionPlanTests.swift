import Testing
import OpenPushCore

@Suite struct DeliveryPartitionPlanTests {
    /// 2026-01-15.
    let today = UTCDay(yyyymmdd: "20260115")!

    func days(_ names: String...) -> [UTCDay] { names.map { UTCDay(yyyymmdd: $0)! } }

    @Test func createsTodayAndTheNextDaysThatAreMissing() {
        let plan = DeliveryPartitionPlan.make(today: today, retentionDays: 30,
                                              partitions: ["deliveries_default", "deliveries_20260114", "deliveries_20260116"])
        #expect(plan.create == days("20260115", "20260117", "20260118"))
        #expect(plan.drop.isEmpty)
    }

    @Test func nothingToDoWhenEverythingIsInPlace() {
        let partitions = (-30...3).map { DeliveryPartitionPlan.partitionName(today + $0) } + ["deliveries_default"]
        #expect(DeliveryPartitionPlan.make(today: today, retentionDays: 30, partitions: partitions)
                == DeliveryPartitionPlan(create: [], drop: []))
    }

    /// With 30 days, the day 30 days back (16 Dec) still holds records younger than 30 days,
    /// written late that day; the day before it holds none, and goes.
    @Test func dropsADayOnceItsNewestRecordIsPastTheRetention() {
        let partitions = ["deliveries_20251215", "deliveries_20251216", "deliveries_20251217"]
            + (0...3).map { DeliveryPartitionPlan.partitionName(today + $0) }
        let plan = DeliveryPartitionPlan.make(today: today, retentionDays: 30, partitions: partitions)
        #expect(plan.drop == days("20251215"))
        #expect(plan.create.isEmpty)
        // The newest record the dropped day can hold is at least 30 days old at the start of today,
        // while the kept day's can be younger.
        #expect(today.startSeconds - (today - 31 + 1).startSeconds == 30 * 86_400)
        #expect(today.startSeconds - (today - 30 + 1).startSeconds < 30 * 86_400)
    }

    @Test func aOneDayRetentionKeepsYesterday() {
        let plan = DeliveryPartitionPlan.make(today: today, retentionDays: 1,
                                              partitions: ["deliveries_20260113", "deliveries_20260114"])
        #expect(plan.drop == days("20260113"))
    }

    @Test func neverTouchesTheDefaultPartitionOrForeignTables() {
        let plan = DeliveryPartitionPlan.make(today: today, retentionDays: 1, partitions: [
            "deliveries_default", "deliveries_v1", "deliveries_2025", "deliveries_20250230", "deliveries_2025010100",
            "deliveries_2025-01-01", "deliveries_20250101_old", "other_20250101", "deliveries_20250101",
        ])
        #expect(plan.drop == days("20250101"))
    }

    /// Records of a day with no partition sit in the default one: that day gets its partition
    /// (the records move in), and when it is past the retention it is dropped in the same pass.
    @Test func daysInTheDefaultPartitionGetTheirPartitionAndOldOnesAreDropped() {
        let plan = DeliveryPartitionPlan.make(today: today, retentionDays: 30,
                                              partitions: (0...3).map { DeliveryPartitionPlan.partitionName(today + $0) },
                                              daysInDefault: days("20251101", "20260110", "20260115"))
        #expect(plan.create == days("20251101", "20260110"))
        #expect(plan.drop == days("20251101"))
    }

    @Test func partitionNamesRoundTrip() {
        #expect(DeliveryPartitionPlan.partitionName(today) == "deliveries_20260115")
        #expect(DeliveryPartitionPlan.day(ofPartition: "deliveries_20260115") == today)
        #expect(DeliveryPartitionPlan.day(ofPartition: "deliveries_default") == nil)
    }
}

@Suite struct UTCDayTests {
    @Test(arguments: [
        (0.0, "19700101"),
        (-1.0, "19691231"),
        (951_782_400.0, "20000229"),
        (1_800_000_000.0, "20270115"),
        (4_107_542_399.0, "21000228"),
    ])
    func dayOfAnInstant(_ seconds: Double, _ expected: String) {
        let day = UTCDay(containing: seconds)
        #expect(day.yyyymmdd == expected)
        #expect(UTCDay(yyyymmdd: expected) == day)
        #expect(day.startSeconds <= seconds && seconds < (day + 1).startSeconds)
    }

    @Test(arguments: ["20250230", "20250001", "20251301", "2025011", "202501011", "2025-1-01", "abcdefgh", "21000229"])
    func rejectsWhatIsNotADate(_ text: String) {
        #expect(UTCDay(yyyymmdd: text) == nil)
    }

    @Test func everyDayOfFourCenturiesReadsBack() {
        for days in stride(from: Int64(-146_097), through: 146_097, by: 1) {
            let day = UTCDay(daysSinceEpoch: days)
            #expect(UTCDay(yyyymmdd: day.yyyymmdd) == day)
        }
        #expect(UTCDay(yyyymmdd: "20260115")!.isoDate == "2026-01-15")
    }
}
