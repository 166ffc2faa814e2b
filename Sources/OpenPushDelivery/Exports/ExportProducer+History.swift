import OpenPushCore
import Postgres

extension ExportProducer {
    /// Accepted deliveries' batches read per query: a job holds up to a few thousand recipients.
    static let batchesPerPage = 2

    /// A message's records (its rows, then its jobs' batches of acceptances, each in keyset
    /// pages), or its taps. The message was checked to be the app's (and the tenant's) when the
    /// job was recorded; every read is bounded by it.
    static func writeHistory(_ job: ClaimedExport, to file: ExportFileWriter, in connection: PostgresConnection) throws {
        guard let messageID = job.messageID else { throw InvariantViolation("history export \(job.id) names no message") }
        file.header(job.kind.historyColumns)
        if job.kind == .notificationClicked {
            try writeTaps(messageID: messageID, to: file, in: connection)
            return
        }
        let events = job.kind == .notificationEvents
        try writeRecordRows(messageID: messageID, appID: job.appID, events: events, to: file, in: connection)
        try writeBatches(messageID: messageID, appID: job.appID, events: events, to: file, in: connection)
    }

    /// One record's line(s): `sent` has one per record; `events` adds the tap after its record.
    private static func write(_ row: PostgresRow, events: Bool, state: String, to file: ExportFileWriter) throws {
        let device: [String] = [try row.decode("subscription_id"), try row.decode("external_id", as: String?.self) ?? "",
                                try deviceType(row)]
        let error = try row.decode("error_reason", as: String?.self) ?? ""
        let at: String = try row.decode("at")
        guard events else {
            file.row(device + [state, error, at])
            return
        }
        file.row(["sent"] + device + [state, error, at])
        if let clicked = try row.decode("clicked_at", as: String?.self) {
            file.row(["clicked"] + device + ["", "", clicked])
        }
    }

    private static func writeRecordRows(messageID: String, appID: String, events: Bool, to file: ExportFileWriter,
                                        in connection: PostgresConnection) throws {
        var after: (subscriptionID: String, id: Int64) = ("", -1)
        while true {
            let page = try connection.query("""
                SELECT r.id, r.subscription_id, r.state, r.error_reason,
                       to_char(r.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS at, s.external_id, s.platform, s.web_type,
                       to_char(c.clicked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS clicked_at
                FROM delivery_rows r
                LEFT JOIN subscriptions s ON s.id = r.subscription_id
                LEFT JOIN delivery_clicks c ON c.message_id = r.message_id AND c.subscription_id = r.subscription_id
                                           AND c.record_id = r.id
                WHERE r.message_id = \(messageID) AND r.app_id = \(appID)
                  AND (r.subscription_id, r.id) > (\(after.subscriptionID), \(after.id))
                ORDER BY r.subscription_id, r.id LIMIT \(ExportLimits.pageSize)
                """)
            for row in page {
                try write(row, events: events, state: try row.decode("state"), to: file)
            }
            try file.endPage()
            guard page.count == ExportLimits.pageSize, let last = page.last else { return }
            after = (try last.decode("subscription_id"), try last.decode("id"))
        }
    }

    private static func writeBatches(messageID: String, appID: String, events: Bool, to file: ExportFileWriter,
                                     in connection: PostgresConnection) throws {
        var after: (last: String, first: String, jobID: Int64) = ("", "", -1)
        let bits = Int32(DeliveryRecord.positionBits)
        while true {
            let page = try connection.query("""
                WITH chosen AS (
                    SELECT * FROM delivery_batches
                    WHERE message_id = \(messageID) AND app_id = \(appID)
                      AND (last_subscription_id, first_subscription_id, job_id) > (\(after.last), \(after.first), \(after.jobID))
                    ORDER BY last_subscription_id, first_subscription_id, job_id LIMIT \(batchesPerPage)
                )
                SELECT b.last_subscription_id, b.first_subscription_id, b.job_id, e.subscription_id,
                       NULL::text AS error_reason,
                       to_char(b.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS at, s.external_id, s.platform, s.web_type,
                       to_char(c.clicked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS clicked_at
                FROM chosen b
                CROSS JOIN LATERAL unnest(b.subscription_ids) WITH ORDINALITY AS e(subscription_id, position)
                LEFT JOIN subscriptions s ON s.id = e.subscription_id
                LEFT JOIN delivery_clicks c ON c.message_id = b.message_id AND c.subscription_id = e.subscription_id
                                           AND c.record_id = (b.job_id << \(bits)) | (e.position - 1)
                ORDER BY b.last_subscription_id, b.first_subscription_id, b.job_id, e.position
                """)
            for row in page {
                try write(row, events: events, state: DeliveryState.accepted.rawValue, to: file)
            }
            try file.endPage()
            guard let last = page.last else { return }
            after = (try last.decode("last_subscription_id"), try last.decode("first_subscription_id"), try last.decode("job_id"))
        }
    }

    /// The devices' first taps, by device.
    private static func writeTaps(messageID: String, to file: ExportFileWriter, in connection: PostgresConnection) throws {
        var after = ""
        while true {
            let page = try connection.query("""
                SELECT c.subscription_id, s.external_id, s.platform, s.web_type,
                       to_char(c.clicked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS at
                FROM delivery_clicks c LEFT JOIN subscriptions s ON s.id = c.subscription_id
                WHERE c.message_id = \(messageID) AND c.subscription_id > \(after)
                ORDER BY c.subscription_id LIMIT \(ExportLimits.pageSize)
                """)
            for row in page {
                file.row([try row.decode("subscription_id"), try row.decode("external_id", as: String?.self) ?? "",
                          try deviceType(row),
                          try row.decode("at")])
            }
            try file.endPage()
            guard page.count == ExportLimits.pageSize, let last = page.last else { return }
            after = try last.decode("subscription_id")
        }
    }

    /// The record's device's OneSignal `device_type`; empty when the subscription is gone.
    static func deviceType(_ row: PostgresRow) throws -> String {
        try row.decode("platform", as: String?.self).map {
            String(OneSignalDeviceType.of(platform: $0, webType: try row.decode("web_type", as: String?.self)))
        } ?? ""
    }
}
