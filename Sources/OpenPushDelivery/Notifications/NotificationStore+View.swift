import OpenPushCore
import Postgres

extension NotificationStore {
    /// The message row `MessageView.render` shows, nil when the app (or, with a `tenantID`, the
    /// shared demo tenant) has none by that id.
    static func viewRow(messageID: String, appID: String, tenantID: String?,
                        in connection: PostgresConnection) throws -> PostgresRow? {
        let tenant: PostgresQuery = tenantID.map { "AND tenant_id = \($0)" } ?? ""
        return try connection.query("""
            SELECT \(viewColumns) FROM messages m WHERE m.id = \(messageID) AND m.app_id = \(appID) \(tenant)
            """).first
    }

    /// The view rows of several messages at once, by id (as `viewRow`, without the app and
    /// tenant checks: for the workers' own events), in one prepared statement.
    static func viewRows(messageIDs: [String], in connection: PostgresConnection) throws -> [String: PostgresRow] {
        guard !messageIDs.isEmpty else { return [:] }
        let rows = try connection.query(prepared: """
            SELECT \(viewColumns) FROM messages m WHERE m.id = ANY(\(messageIDs)::text[])
            """)
        var found: [String: PostgresRow] = [:]
        for row in rows { found[try row.decode("id")] = row }
        return found
    }

    /// What `MessageView.render` reads of a message row `m`. Every figure comes from the counts
    /// kept on the row as its records are written (`DeliveryCounts`, migration 0033), never from
    /// its records: one row whatever the audience.
    private static let viewColumns: PostgresQuery = """
        m.id, m.app_id, m.kind, m.event, m.name, m.activity_type, m.activity_id, m.request::text AS request, m.audience_total,
        m.truncated, m.clicks, extract(epoch FROM m.created_at)::float8 AS created_at,
        extract(epoch FROM m.send_after)::float8 AS send_after, m.cancelled_at IS NOT NULL AS cancelled, m.failed_reason,
        m.expansion = \(MessageExpansion.pending.rawValue) AS expanding,
        m.counted_successful AS successful, m.counted_failed AS failed, m.counted_errored AS errored,
        m.counted_converted AS converted, m.counted_cancelled AS cancelled_records,
        m.counted_errors_by_reason::text AS errors_by_reason, m.counted_suppressed_by_reason::text AS suppressed_by_reason,
        extract(epoch FROM m.counted_last_finished_at)::float8 AS last_finished,
        (SELECT COALESCE(sum(cardinality(subscription_ids)), 0) FROM delivery_jobs WHERE message_id = m.id)::int AS remaining
        """
}
