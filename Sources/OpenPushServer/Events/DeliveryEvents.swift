import OpenPushCore
import Postgres

/// `delivery.accepted` and `delivery.failed`, appended in the transaction that completes a job.
/// A fan-out to a million devices would write a million events, so they are written only while
/// the app has an enabled endpoint subscribed to that type (or `*`): looked up once per job. The
/// feed therefore shows delivery events only for apps with such an endpoint. Suppressed,
/// cancelled and superseded records emit nothing. A job's events of each type are one row
/// (`DeliveryEventBatch`): a fan-out writes a row per job, which readers expand.
enum DeliveryEvents {
    static func append(_ records: [DeliveryRecord], of job: DeliveryJob, in connection: PostgresConnection) throws {
        let hasAccepted = records.contains { $0.state == .accepted }
        let hasFailed = records.contains { $0.state == .error }
        guard hasAccepted || hasFailed else { return }
        let wanted = try subscribedTypes(appID: job.appID, in: connection)
        let accepted = hasAccepted && wanted.contains(.deliveryAccepted)
        let failed = hasFailed && wanted.contains(.deliveryFailed)
        guard accepted || failed else { return }
        var acceptedBatch = DeliveryEventBatch(notificationID: job.messageID, tokenKind: job.tokenKind.rawValue)
        var failedBatch = DeliveryEventBatch(notificationID: job.messageID, tokenKind: job.tokenKind.rawValue, failures: ([], []))
        for record in records {
            switch record.state {
            case .accepted where accepted:
                acceptedBatch.append(subscriptionID: record.subscriptionID, apnsID: record.apnsID)
            case .error where failed:
                failedBatch.append(subscriptionID: record.subscriptionID, apnsID: record.apnsID,
                                   failure: (record.reason, record.apnsStatus))
            default:
                continue
            }
        }
        let events = [OutboundEvent(type: .deliveryAccepted, appID: job.appID, batch: acceptedBatch),
                      OutboundEvent(type: .deliveryFailed, appID: job.appID, batch: failedBatch)].compactMap { $0 }
        try EventOutbox.append(events, in: connection)
    }

    /// The types some enabled endpoint of the app subscribes to (`*` counts as every type).
    static func subscribedTypes(appID: String, in connection: PostgresConnection) throws -> Set<EventType> {
        let names: [String] = try connection.query("""
            SELECT COALESCE(array_agg(DISTINCT e), '{}') AS names FROM webhooks, unnest(events) AS e
            WHERE app_id = \(appID) AND enabled
            """)[0].decode("names")
        if names.contains(EventType.wildcard) { return Set(EventType.allCases) }
        return Set(names.compactMap(EventType.init(rawValue:)))
    }
}
