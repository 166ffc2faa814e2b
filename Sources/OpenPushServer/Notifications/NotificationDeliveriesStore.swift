import OpenPushCore
import OpenPushDelivery
import Postgres

/// A message's per-device delivery records, for support ("did this device get it?"): keyset
/// pages by device, then record id, plus how many recipients are still waiting in jobs, so "not
/// yet" reads differently from "never". Records are rows (`delivery_rows_by_message (message_id,
/// subscription_id, id)`) and jobs' batches of acceptances (`delivery_batches_by_message
/// (message_id, last_subscription_id, first_subscription_id, job_id)`, migration 0045): a page
/// merges the next rows with the elements of the next few batches in index order, reading more
/// batches only while one not read could hold a record that belongs on the page.
enum NotificationDeliveriesStore {
    /// One record as the route shows it. Times are whole unix seconds.
    struct Record: Sendable, Equatable {
        var id: Int64
        var subscriptionID: String
        /// The device's platform (`ios`, `android`, …); nil once the subscription is deleted.
        var platform: String?
        var tokenKind: TokenKind
        var state: DeliveryState
        var errorReason: String?
        var carriedBy: String?
        var apnsID: String
        var apnsStatus: Int?
        /// FCM's name of an accepted Android push (`projects/…/messages/…`).
        var fcmMessageName: String?
        /// APNs' `apns-unique-id` (sandbox answers only).
        var apnsUniqueID: String?
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
        var batchesRead = 4
        while true {
            let edge = try batchEdge(messageID: messageID, request: request, batches: batchesRead, in: connection)
            let rows = try records(messageID: messageID, appID: appID, request: request, upTo: edge, in: connection)
            // Batches past the edge begin after the page's end (in the usual fan-out, whose
            // batches do not overlap, the first such check says so).
            if let edge, try batchBegins(messageID: messageID, request: request, after: edge,
                                         atOrBefore: rows.count > request.limit ? rows[request.limit].subscriptionID : nil,
                                         in: connection) {
                batchesRead *= 4
                continue
            }
            let records = Array(rows.prefix(request.limit))
            let last = records.last.map { DeliveryPosition(subscriptionID: $0.subscriptionID, id: $0.id) }
            return Page(records: records, nextAfter: rows.count > request.limit ? last : nil,
                        remaining: try DeliveryQueue.waitingRecipients(of: messageID, subscriptionID: request.subscriptionID,
                                                                       in: connection))
        }
    }

    /// A batch's place in its index: (last, first subscription id, job id).
    struct BatchKey: Sendable, Equatable {
        var last: String
        var first: String
        var jobID: Int64
    }

    /// The request's candidate batches of the message (the message is the app's, checked
    /// above, and so are its batches): those that can hold a record it shows.
    private static func candidateBatches(messageID: String, request: DeliveryListRequest) -> PostgresQuery {
        if let state = request.state, state != .accepted { return "WHERE false" }
        var filter: PostgresQuery = "WHERE message_id = \(messageID)"
        if let after = request.after { filter = filter + " AND last_subscription_id >= \(after.subscriptionID)" }
        if let device = request.subscriptionID {
            filter = filter + " AND last_subscription_id >= \(device) AND first_subscription_id <= \(device)"
        }
        return filter
    }

    /// The `count`th candidate batch in index order; nil when there are fewer.
    private static func batchEdge(messageID: String, request: DeliveryListRequest, batches count: Int,
                                  in connection: PostgresConnection) throws -> BatchKey? {
        try connection.query("""
            SELECT last_subscription_id, first_subscription_id, job_id FROM delivery_batches
            \(candidateBatches(messageID: messageID, request: request))
            ORDER BY last_subscription_id, first_subscription_id, job_id OFFSET \(count - 1) LIMIT 1
            """).first.map { BatchKey(last: try $0.decode("last_subscription_id"), first: try $0.decode("first_subscription_id"),
                                      jobID: try $0.decode("job_id")) }
    }

    /// Whether a candidate batch past `edge` begins at or before `subscriptionID` (any, when nil).
    private static func batchBegins(messageID: String, request: DeliveryListRequest, after edge: BatchKey,
                                    atOrBefore subscriptionID: String?, in connection: PostgresConnection) throws -> Bool {
        let begins: PostgresQuery = subscriptionID.map { " AND first_subscription_id <= \($0)" } ?? ""
        return try connection.query("""
            SELECT EXISTS (SELECT 1 FROM delivery_batches \(candidateBatches(messageID: messageID, request: request))
                           AND (last_subscription_id, first_subscription_id, job_id) > (\(edge.last), \(edge.first), \(edge.jobID))
                           \(begins)) AS begins
            """)[0].decode("begins")
    }

    /// Up to one more record than the page shows: the next rows, merged with the elements of the
    /// candidate batches up to `edge` (all of them when nil).
    private static func records(messageID: String, appID: String, request: DeliveryListRequest, upTo edge: BatchKey?,
                                in connection: PostgresConnection) throws -> [Record] {
        let upTo: PostgresQuery = edge.map {
            " AND (last_subscription_id, first_subscription_id, job_id) <= (\($0.last), \($0.first), \($0.jobID))"
        } ?? ""
        let after: PostgresQuery = request.after.map { "AND (subscription_id, id) > (\($0.subscriptionID), \($0.id))" } ?? ""
        let device: PostgresQuery = request.subscriptionID.map { "AND subscription_id = \($0)" } ?? ""
        let state: PostgresQuery = request.state.map { "AND state = \($0.rawValue)" } ?? ""
        // One more than asked for says whether another page follows.
        return try connection.query("""
            WITH chosen AS (
                SELECT * FROM delivery_batches \(candidateBatches(messageID: messageID, request: request)) \(upTo)
            ), records AS (
                SELECT * FROM (
                    SELECT (b.job_id << \(Int32(DeliveryRecord.positionBits))) | (e.position - 1) AS id, b.message_id,
                           e.subscription_id, b.token_kind, 'accepted'::text AS state, NULL::text AS error_reason,
                           NULL::text AS carried_by, NULL::uuid AS apns_id, b.apns_status, NULL::text AS fcm_message_name,
                           NULL::text AS apns_unique_id, b.attempts, e.live_activity_id, b.finished_at
                    FROM chosen b CROSS JOIN LATERAL unnest(b.subscription_ids, b.live_activity_ids) WITH ORDINALITY
                         AS e(subscription_id, live_activity_id, position)
                ) AS batched WHERE true \(after) \(device)
                UNION ALL
                (SELECT id, message_id, subscription_id, token_kind, state, error_reason, carried_by, apns_id, apns_status,
                        fcm_message_name, apns_unique_id, attempts, live_activity_id, finished_at
                 FROM delivery_rows
                 WHERE message_id = \(messageID) AND app_id = \(appID) \(after) \(device) \(state)
                 ORDER BY subscription_id, id LIMIT \(request.limit + 1))
            )
            SELECT id, message_id, subscription_id, token_kind, state, error_reason, carried_by,
                   apns_id::text AS stored_apns_id, apns_status, fcm_message_name, apns_unique_id, attempts,
                   live_activity_id, floor(extract(epoch FROM finished_at))::bigint AS finished_at,
                   (SELECT floor(extract(epoch FROM c.clicked_at))::bigint FROM delivery_clicks c
                    WHERE c.message_id = records.message_id AND c.subscription_id = records.subscription_id
                      AND c.record_id = records.id) AS clicked_at,
                   (SELECT s.platform FROM subscriptions s WHERE s.id = records.subscription_id) AS platform
            FROM records
            ORDER BY subscription_id, id LIMIT \(request.limit + 1)
            """).map(Record.init(row:))
    }
}

extension NotificationDeliveriesStore.Record {
    init(row: PostgresRow) throws {
        id = try row.decode("id")
        subscriptionID = try row.decode("subscription_id")
        platform = try row.decode("platform")
        // A stored value this build does not know is a broken row, not something to guess at.
        let kind: String = try row.decode("token_kind")
        guard let tokenKind = TokenKind(rawValue: kind) else { throw InvariantViolation("a delivery record holds token kind '\(kind)'") }
        self.tokenKind = tokenKind
        let stored: String = try row.decode("state")
        guard let state = DeliveryState(rawValue: stored) else { throw InvariantViolation("a delivery record holds state '\(stored)'") }
        self.state = state
        errorReason = try row.decode("error_reason")
        carriedBy = try row.decode("carried_by")
        // Derived here, as the worker derived the one the push carried; only rows written
        // before migration 0039 store theirs.
        let storedID: String? = try row.decode("stored_apns_id")
        apnsID = try storedID ?? APNSIdentifier.derive(messageID: row.decode("message_id"), subscriptionID: subscriptionID,
                                                     tokenKind: tokenKind)
        apnsStatus = try row.decode("apns_status")
        fcmMessageName = try row.decode("fcm_message_name")
        apnsUniqueID = try row.decode("apns_unique_id")
        attempts = try row.decode("attempts")
        liveActivityID = try row.decode("live_activity_id")
        finishedAt = try row.decode("finished_at")
        clickedAt = try row.decode("clicked_at")
    }
}
