import OpenPushCore

/// The jobs one claim leased (`DeliveryQueue.claimNext`), all of one app and lane: planned,
/// sent and completed as one. Its deliveries are numbered across the batch (a delivery's id
/// is its index among them, as the transport's outcomes are), and `locate` maps one back to
/// its job and its place in that job, which numbers its record (`DeliveryRecord.id`).
struct JobBatch: Sendable {
    let jobs: [DeliveryJob]
    /// Where each job's recipients start among the batch's deliveries.
    private let starts: [Int]
    let recipientCount: Int

    init(_ jobs: [DeliveryJob]) {
        precondition(!jobs.isEmpty, "a batch holds a job")
        self.jobs = jobs
        var starts: [Int] = [], count = 0
        for job in jobs {
            starts.append(count)
            count += job.recipients.count
        }
        self.starts = starts
        recipientCount = count
    }

    /// The oldest job: the app, lane and token kind of every job of the batch.
    var first: DeliveryJob { jobs[0] }

    var jobIDs: [Int64] { jobs.map(\.id) }

    var messageIDs: Set<String> { Set(jobs.map(\.messageID)) }

    /// Every job's deliveries, numbered across the batch.
    var deliveries: [ClaimedDelivery] {
        guard jobs.count > 1 else { return first.deliveries }
        var all: [ClaimedDelivery] = []
        all.reserveCapacity(recipientCount)
        for (index, job) in jobs.enumerated() {
            for var delivery in job.deliveries {
                delivery.id += Int64(starts[index])
                all.append(delivery)
            }
        }
        return all
    }

    /// The job (its index in `jobs`) and the place in it of the delivery numbered `id`.
    func locate(_ id: Int64) -> (job: Int, position: Int) {
        let index = Int(id)
        // The last job starting at or before `index`: binary search, batches hold up to a hundred jobs or so.
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return (low, index - starts[low])
    }

    /// The batch without the jobs of `messageID` (nil when nothing is left).
    func removing(messageID: String) -> JobBatch? {
        let kept = jobs.filter { $0.messageID != messageID }
        return kept.isEmpty ? nil : JobBatch(kept)
    }
}
