import OpenPushCore
import Postgres

/// A message's per-device delivery records, for support ("did this device get it?"): keyset
/// pages by device, then record id, over `deliveries_by_message (message_id, subscription_id,
/// id)`, plus how many recipients are still waiting in jobs, so "not yet" reads differently
/// from "never".
enum NotificationDeliveriesStore {
    /// One record as the route shows it. Times are whole unix seconds.
    struct Record: Sendable, Equatable {
        var id: Int64
        var subscriptionID: String
        var tokenKind: String
        var state: String
        var errorReason: String?
        var carriedBy: String?
        var apnsID: String
        var apnsStatus: Int?
        var attempts: Int
        var liveActivityID: String?
        var finishedAt: Int64
        var clickedAt: Int64?
    }

    struct Page: Sendable {
        var records: [Record]
        /// The last record's position when more follow it; nil on the last page.
        var nextAfter: DeliveryPosition?
        /// Recipients still queued (of `subscription_id` when the request names one).
        var remaining: Int
    }

    /// Nil when the app has no such message; with a `tenantID` (a shared demo tenant's key)
    /// another tenant's message is as missing as one that never existed, as in `MessageView`.
    /// Call inside a transaction: records and `remaining` are read from one snapshot, so a job
    /// completing in between is counted once, not in both or neither.
    static func page(messageID: String, appID: String, tenantID: String?, request: DeliveryListRequest,
                     in connection: PostgresConnection) throws -> Page? {
        try connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
        guard try !connection.query("""
            SELECT 1 FROM messages WHERE id = \(messageID) AND app_id = \(appID) \(tenant)
            """).isEmpty else { return nil }
        let after: PostgresQuery = request.after.map { "AND (subscription_id, id) > (\($0.subscriptionID), \($0.id))" } ?? ""
        let device: PostgresQuery = request.subscriptionID.map { "AND subscription_id = \($0)" } ?? ""
        let state: PostgresQuery = request.state.map { "AND state = \($0.rawValue)" } ?? ""
        // One more than asked for says whether another page follows.
        let rows = try connection.query("""
            SELECT id, subscription_id, token_kind, state, error_reason, carried_by,
                   \(DeliveryRecord.storedAPNSID)::text AS apns_id, apns_status, attempts,
                   live_activity_id, floor(extract(epoch FROM finished_at))::bigint AS finished_at,
                   floor(extract(epoch FROM clicked_at))::bigint AS clicked_at
            FROM deliveries
            WHERE message_id = \(messageID) AND app_id = \(appID) \(after) \(device) \(state)
            ORDER BY subscription_id, id LIMIT \(request.limit + 1)
            """)
        let records = try rows.prefix(request.limit).map(Record.init(row:))
        let last = records.last.map { DeliveryPosition(subscriptionID: $0.subscriptionID, id: $0.id) }
        return Page(records: records, nextAfter: rows.count > request.limit ? last : nil,
                    remaining: try DeliveryQueue.waitingRecipients(of: messageID, subscriptionID: request.subscriptionID,
                                                                   in: connection))
    }
}

extension NotificationDeliveriesStore.Record {
    init(row: PostgresRow) throws {
        id = try row.decode("id")
        subscriptionID = try row.decode("subscription_id")
        tokenKind = try row.decode("token_kind")
        state = try row.decode("state")
        errorReason = try row.decode("error_reason")
        carriedBy = try row.decode("carried_by")
        apnsID = try row.decode("apns_id")
        apnsStatus = try row.decode("apns_status")
        attempts = try row.decode("attempts")
        liveActivityID = try row.decode("live_activity_id")
        finishedAt = try row.decode("finished_at")
        clickedAt = try row.decode("clicked_at")
    }
}
