import OpenPushCore
import Postgres

extension NotificationStore {
    /// The message row `MessageView.render` shows, nil when the app (or, with a `tenantID`, the
    /// shared demo tenant) has none by that id.
    static func viewRow(messageID: String, appID: String, tenantID: String?,
                        in connection: PostgresConnection) throws -> PostgresRow? {
        let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
        // Every figure comes from the counts kept on the message row as its records are written
        // (`DeliveryCounts`, migration 0033), never from its records: one row whatever the audience.
        return try connection.query("""
            SELECT id, app_id, kind, event, name, activity_type, activity_id, request::text AS request, audience_total,
                   truncated, clicks, extract(epoch FROM created_at)::float8 AS created_at,
                   extract(epoch FROM send_after)::float8 AS send_after, cancelled_at IS NOT NULL AS cancelled, failed_reason,
                   expansion = \(MessageExpansion.pending.rawValue) AS expanding,
                   counted_successful AS successful, counted_failed AS failed, counted_errored AS errored,
                   counted_converted AS converted, counted_cancelled AS cancelled_records,
                   counted_errors_by_reason::text AS errors_by_reason, counted_suppressed_by_reason::text AS suppressed_by_reason,
                   extract(epoch FROM counted_last_finished_at)::float8 AS last_finished,
                   (SELECT COALESCE(sum(cardinality(subscription_ids)), 0) FROM delivery_jobs
                    WHERE message_id = \(messageID))::int AS remaining
            FROM messages WHERE id = \(messageID) AND app_id = \(appID) \(tenant)
            """).first
    }
}
