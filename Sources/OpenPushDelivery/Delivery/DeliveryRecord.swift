package import OpenPushCore
package import Postgres

/// One device's outcome for one message: appended once, when its job completes (the job gives
/// the message, app and token kind).
package struct DeliveryRecord: Sendable, Equatable {
    package typealias State = DeliveryState

    /// A stored record's apns-id, as readers select it: derived (migration 0039), or the one a
    /// row written before that holds.
    package static let storedAPNSID: PostgresQuery = "COALESCE(apns_id, openpush_apns_id(message_id, subscription_id, token_kind))"

    /// The push's apns-id: its delivery events carry it in memory; no row stores it.
    package var apnsID: String
    package var subscriptionID: String
    package var liveActivityID: String?
    package var state: State
    package var attempts: Int
    /// The error's reason, or for a `suppressed` record its `SuppressionReason`.
    package var reason: String?
    package var apnsStatus: Int?
    /// A coalesced update's: the message whose push carried its state.
    package var carriedBy: String?
    /// An accepted Android push's FCM message name (`projects/…/messages/…`).
    package var fcmMessageName: String?
    /// APNs' `apns-unique-id` (sandbox answers only), which Apple's Push Notifications Console looks up.
    package var apnsUniqueID: String?
    /// The push service it went to (or would have): the stats rollup counts records by it. Not
    /// stored on the record: its subscription's platform gives it again.
    package var service: PushService

    /// `apnsID` when the caller has it already (deriving it is a hash per recipient).
    init(job: DeliveryJob, recipient: DeliveryJob.Recipient, state: State, service: PushService, reason: String? = nil,
         apnsStatus: Int? = nil, attempts: Int? = nil, apnsID: String? = nil, carriedBy: String? = nil,
         fcmMessageName: String? = nil, apnsUniqueID: String? = nil) {
        self.apnsID = apnsID ?? APNSIdentifier.derive(messageID: job.messageID, subscriptionID: recipient.subscriptionID,
                                                      tokenKind: job.tokenKind)
        subscriptionID = recipient.subscriptionID
        liveActivityID = recipient.liveActivityID
        self.state = state
        self.attempts = attempts ?? job.attempt
        self.reason = reason
        self.apnsStatus = apnsStatus
        self.carriedBy = carriedBy
        self.fcmMessageName = fcmMessageName
        self.apnsUniqueID = apnsUniqueID
        self.service = service
    }

    /// Bits of a record's id that number it within its job (`id(jobID:position:)`).
    package static let positionBits = 20

    /// A record's id: its job's id, then its place among the records the job's completion
    /// appends. A job's recipients are recorded once, when it completes (a retry is a new job),
    /// so no two records share an id, and appending needs no sequence: a `nextval` per row was
    /// about a seventh of the append's cost in PostgreSQL. Direct inserts (tests, rows moved
    /// between partitions) keep the column's identity default.
    static func id(jobID: Int64, position: Int) -> Int64 {
        jobID << positionBits | Int64(position)
    }

    /// A job's records as they are appended: its plain acceptances (`isBatched`), nearly all of
    /// a fan-out's, as one `delivery_batches` row (migration 0045), numbered first; every other
    /// record as a row of `delivery_rows` (`appendRows`, one binary `COPY` for a whole batch of
    /// jobs), numbered after them. `apns_id` is left out: readers derive it (`storedAPNSID`,
    /// migration 0039); so is the token (migration 0040).
    struct Split {
        var batched: [DeliveryRecord] = []
        var single: [DeliveryRecord] = []
        /// The APNs status the batch row records: the first acceptance's.
        var status: Int?
    }

    static func split(_ records: [DeliveryRecord], of job: DeliveryJob) -> Split {
        precondition(records.count < 1 << positionBits, "a job of \(records.count) records outnumbers its record ids")
        var split = Split(status: batchStatus(records))
        for record in records {
            if record.isBatched(attempt: job.attempt, status: split.status) { split.batched.append(record) } else { split.single.append(record) }
        }
        return split
    }

    /// The APNs status a job's batch records: its first acceptance's.
    private static func batchStatus(_ records: [DeliveryRecord]) -> Int? {
        records.first { $0.state == .accepted }?.apnsStatus
    }

    /// The usual fan-out job, and a one-user message's: every recipient accepted plainly, in the
    /// job's order. Then its batch row is the job's own arrays, which the statement that removes
    /// the job (`DeliveryQueue`) writes: no id is formatted here or parsed there.
    struct WholeJob: Sendable {
        var status: Int?
        var hasActivities: Bool
    }

    /// Nil unless every recipient of the job was accepted plainly, in the job's order.
    static func wholeJob(_ records: [DeliveryRecord], of job: DeliveryJob) -> WholeJob? {
        guard !records.isEmpty, records.count == job.recipients.count else { return nil }
        let status = batchStatus(records)
        for index in records.indices {
            let record = records[index], recipient = job.recipients[index]
            guard record.isBatched(attempt: job.attempt, status: status), record.subscriptionID == recipient.subscriptionID,
                  record.liveActivityID == recipient.liveActivityID else { return nil }
        }
        return WholeJob(status: status, hasActivities: records.contains { $0.liveActivityID != nil })
    }

    /// The `INSERT` of a job's batch whose element arrays `ids` and `activities` are read from
    /// `source`. Its bounds are computed by PostgreSQL, in the collation the readers compare
    /// devices in.
    private static func batchInsert(of job: DeliveryJob, status: Int?, ids: PostgresQuery, activities: PostgresQuery,
                                    from source: PostgresQuery) -> PostgresQuery {
        """
        INSERT INTO delivery_batches (job_id, message_id, app_id, token_kind, attempts, apns_status, subscription_ids,
                                      live_activity_ids, first_subscription_id, last_subscription_id, finished_at)
        SELECT \(job.id), \(job.messageID), \(job.appID), \(job.tokenKind.rawValue), \(Int32(clamping: job.attempt)),
               \(status.map { Int32(clamping: $0) }), \(ids), \(activities),
               (SELECT min(id) FROM unnest(\(ids)) AS id), (SELECT max(id) FROM unnest(\(ids)) AS id), now()
        FROM \(source)
        """
    }

    /// An acceptance with nothing of its own to keep: on the job's attempt, with the status the
    /// job's other acceptances have, no reason, not carried by another message, no FCM message
    /// name (an Android acceptance keeps its own, so it is a row), no `apns-unique-id` (a sandbox one).
    func isBatched(attempt: Int, status: Int?) -> Bool {
        state == .accepted && reason == nil && carriedBy == nil && fcmMessageName == nil && apnsUniqueID == nil
            && attempts == attempt
            && apnsStatus == status
    }

    /// One row for the job's batched records, element i being record `id(jobID:position: i)`.
    static func appendBatch(_ records: [DeliveryRecord], status: Int?, of job: DeliveryJob,
                            in connection: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        let activities = records.contains { $0.liveActivityID != nil } ? records.map(\.liveActivityID) : nil
        try connection.query(prepared: batchInsert(of: job, status: status, ids: "batch.ids", activities: "\(activities)::text[]",
                                                   from: "(SELECT \(records.map(\.subscriptionID))::text[] AS ids) AS batch"))
    }
}
