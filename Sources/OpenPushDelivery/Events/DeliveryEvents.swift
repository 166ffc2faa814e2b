import OpenPushCore
import Postgres

/// `delivery.accepted` and `delivery.failed`, appended in the transaction that completes a job,
/// whether or not an endpoint subscribes to them: the feed serves backends that take no inbound
/// HTTP and so have no endpoint. A job's events of each type are one row (`DeliveryEventBatch`),
/// so a fan-out writes a row per job, which readers expand. Suppressed, cancelled and superseded
/// records emit nothing.
enum DeliveryEvents {
    static func append(_ records: [DeliveryRecord], of job: DeliveryJob, in connection: PostgresConnection) throws {
        try append([(records, job)], in: connection)
    }

    /// The events of several jobs (a batch's), a row per job and type as for one, in one append.
    static func append(_ jobs: [(records: [DeliveryRecord], job: DeliveryJob)], in connection: PostgresConnection) throws {
        let outbound = jobs.flatMap { Self.events(of: $0.records, job: $0.job) }
        guard !outbound.isEmpty else { return }
        try EventOutbox.append(outbound, in: connection)
    }

    private static func events(of records: [DeliveryRecord], job: DeliveryJob) -> [OutboundEvent] {
        var acceptedBatch = DeliveryEventBatch(notificationID: job.messageID, tokenKind: job.tokenKind)
        var failedBatch = DeliveryEventBatch(notificationID: job.messageID, tokenKind: job.tokenKind, failures: ([], []))
        // By index: a `for record in` copied (retained and released) every field of each record.
        for index in records.indices {
            switch records[index].state {
            case .accepted:
                acceptedBatch.append(subscriptionID: records[index].subscriptionID, apnsID: records[index].apnsID)
            case .error:
                failedBatch.append(subscriptionID: records[index].subscriptionID, apnsID: records[index].apnsID,
                                   failure: (records[index].reason, records[index].apnsStatus))
            default:
                continue
            }
        }
        return [OutboundEvent(type: .deliveryAccepted, appID: job.appID, batch: acceptedBatch),
                OutboundEvent(type: .deliveryFailed, appID: job.appID, batch: failedBatch)].compactMap { $0 }
    }
}
