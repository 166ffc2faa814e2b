import OpenPushCore
import Postgres

/// Appending the records of several jobs at once: a batch of one-user messages is completed
/// with one statement for its whole jobs' batch rows and one `COPY` for every other record.
extension DeliveryRecord {
    /// One job's records that go to `delivery_rows`, numbered from `firstPosition`.
    struct Rows {
        var job: DeliveryJob
        var firstPosition: Int
        var records: [DeliveryRecord]
    }

    /// The CTE `whole_batches` of the statement that removes a batch's jobs (its CTE `held`
    /// returns their `id`, `subscription_ids` and `live_activity_ids`): a `delivery_batches` row
    /// per job of `whole`, from the job's own arrays.
    static func wholeBatchesInsert(_ whole: [(job: DeliveryJob, whole: WholeJob)]) -> PostgresQuery {
        let jobs = whole.map(\.job)
        return """
            , whole_batches AS (
                INSERT INTO delivery_batches (job_id, message_id, app_id, token_kind, attempts, apns_status, subscription_ids,
                                              live_activity_ids, first_subscription_id, last_subscription_id, finished_at)
                SELECT h.id, w.message_id, w.app_id, w.token_kind, w.attempts, w.status, h.subscription_ids,
                       CASE WHEN w.activities THEN h.live_activity_ids END,
                       (SELECT min(id) FROM unnest(h.subscription_ids) AS id), (SELECT max(id) FROM unnest(h.subscription_ids) AS id),
                       now()
                FROM held h
                JOIN unnest(\(jobs.map(\.id))::int8[], \(jobs.map(\.messageID))::text[], \(jobs.map(\.appID))::text[],
                            \(jobs.map(\.tokenKind.rawValue))::text[], \(jobs.map { Int32(clamping: $0.attempt) })::int4[],
                            \(whole.map { $0.whole.status.map { Int32(clamping: $0) } })::int4[],
                            \(whole.map(\.whole.hasActivities))::bool[])
                     AS w(id, message_id, app_id, token_kind, attempts, status, activities) ON w.id = h.id
            )
            """
    }

    /// Every record of `rows` as a row of `delivery_rows`, in one binary `COPY`: nothing for
    /// PostgreSQL to parse or plan per record. `finishedAt` is the transaction's `now()`
    /// (PostgreSQL's clock), as microseconds since 2000-01-01, the form COPY takes.
    static func appendRows(_ rows: [Rows], finishedAt: Int64, in connection: PostgresConnection) throws {
        let count = rows.reduce(0) { $0 + $1.records.count }
        guard count > 0 else { return }
        var copy = PostgresCopyRows(columns: 14, capacity: count * 200)
        for part in rows {
            let job = part.job, records = part.records
            // By index: a `for record in` copied (retained and released) every field of each record.
            for index in records.indices {
                copy.startRow()
                copy.append(id(jobID: job.id, position: part.firstPosition + index))
                copy.append(job.messageID)
                copy.append(job.appID)
                copy.append(records[index].subscriptionID)
                copy.append(records[index].liveActivityID)
                copy.append(job.tokenKind.rawValue)
                copy.append(records[index].state.rawValue)
                copy.append(Int32(clamping: records[index].attempts))
                copy.append(records[index].reason)
                copy.append(records[index].apnsStatus.map { Int32(clamping: $0) })
                copy.append(timestampSince2000: finishedAt)
                copy.append(records[index].carriedBy)
                copy.append(records[index].fcmMessageName)
                copy.append(records[index].apnsUniqueID)
            }
        }
        try connection.copy(into: """
            delivery_rows (id, message_id, app_id, subscription_id, live_activity_id, token_kind, state, attempts,
                           error_reason, apns_status, finished_at, carried_by, fcm_message_name, apns_unique_id)
            """, rows: copy)
    }
}
