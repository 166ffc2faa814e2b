package import OpenPushCore
package import Postgres

/// Notification messages from the request side: listed and cancelled (`MessageEnqueue`
/// creates them). Expansion into deliveries is `NotificationExpansion`'s.
package enum NotificationStore {
    package static let idempotencyScope = "notifications"
    /// OneSignal's retry window for `Idempotency-Key`.
    package static let idempotencyRetention: Double = 24 * 3600
    /// The body's `idempotency_key` (or `external_id`): OneSignal keeps it 30 days.
    package static let bodyIdempotencyScope = "notifications_body"
    package static let bodyIdempotencyRetention: Double = 30 * 24 * 3600

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
        // Locks the message row: an expansion page in flight commits first, and none follows.
        try MessageLifecycleStore.cancel(messageID: messageID, appID: appID, tenantID: tenantID, now: now, in: connection)
    }
}
