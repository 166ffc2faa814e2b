package import OpenPushCore
package import Postgres

/// Notification messages from the request side: created with their audience definition,
/// listed, and cancelled. Expansion into deliveries is `NotificationExpansion`'s.
package enum NotificationStore {
    package static let idempotencyScope = "notifications"
    /// OneSignal's retry window for `Idempotency-Key`.
    package static let idempotencyRetention: Double = 24 * 3600
    /// The body's `idempotency_key` (or `external_id`): OneSignal keeps it 30 days.
    package static let bodyIdempotencyScope = "notifications_body"
    package static let bodyIdempotencyRetention: Double = 30 * 24 * 3600

    /// Stores the validated send in its canonical form (the audience definition the workers
    /// expand from `sendAfter`) and the request as it came, for the view to echo.
    package static func insert(appID: String, tenantID: String?, send: NotificationSend, request: JSONObject, now: Double,
                       in connection: PostgresConnection) throws -> String {
        let id = Identifier.make(prefix: "msg", now: now, random: KeyMaterial.identifierEntropy())
        try connection.query("""
            INSERT INTO messages (id, app_id, kind, name, request, send, tenant_id, send_after, expansion, created_at)
            VALUES (\(id), \(appID), 'notification', \(send.name), \(JSONValue.object(request).serialized)::jsonb,
                    \(StoredSend.encode(send).serialized)::jsonb, \(tenantID),
                    to_timestamp(\(max(send.sendAfter ?? now, now))), 'pending', to_timestamp(\(now)))
            """)
        return id
    }

    /// Newest first; a shared demo tenant sees only its own messages.
    package static func list(appID: String, tenantID: String?, page: PageRequest,
                     in connection: PostgresConnection) throws -> (total: Int, ids: [String]) {
        let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
        let total: Int = try connection.query("""
            SELECT count(*)::int AS n FROM messages WHERE app_id = \(appID) \(tenant)
            """)[0].decode("n")
        let ids = try connection.query("""
            SELECT id FROM messages WHERE app_id = \(appID) \(tenant)
            ORDER BY created_at DESC, id DESC LIMIT \(page.limit) OFFSET \(page.offset)
            """).map { try $0.decode("id", as: String.self) }
        return (total, ids)
    }

    /// Stops the expansion and cancels the jobs no worker holds yet. A job already in flight
    /// finishes its pushes but queues no retry. Returns false when the app has no such message.
    package static func cancel(messageID: String, appID: String, tenantID: String?, now: Double,
                       in connection: PostgresConnection) throws -> Bool {
        let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
        // Locks the message row: an expansion page in flight commits first, and none follows.
        let found = try connection.query("""
            UPDATE messages SET cancelled_at = COALESCE(cancelled_at, to_timestamp(\(now))),
                   expansion = CASE WHEN expansion = 'pending' THEN 'cancelled' ELSE expansion END
            WHERE id = \(messageID) AND app_id = \(appID) \(tenant)
            RETURNING id
            """)
        guard !found.isEmpty else { return false }
        try DeliveryQueue.cancel(messageID: messageID, in: connection)
        try ChannelBroadcastStore.cancelQueued(messageID: messageID, in: connection)
        // No job in flight: the cancel is what finishes the message.
        try NotificationCompletion.check(messageID: messageID, in: connection)
        return true
    }
}
