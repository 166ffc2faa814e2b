import OpenPushCore
import Postgres

extension ExportProducer {
    /// The app's subscriptions (the tenant's, for a tenant's key), keyset pages by id.
    static func writeSubscriptions(_ job: ClaimedExport, to file: ExportFileWriter, now: Double,
                                   in connection: PostgresConnection) throws {
        let options = SubscriptionExportOptions(stored: job.options)
        var filter: PostgresQuery = "s.app_id = \(job.appID)"
        if let tenantID = job.tenantID { filter.append(" AND s.tenant_id = \(tenantID)") }
        if let since = options.lastActiveSince { filter.append(" AND s.last_session_at >= to_timestamp(\(since))") }
        if let segment = options.segmentName {
            // A segment deleted since the request is a failure the job records, not an empty file.
            filter.append(" AND " + (try SegmentAudience.condition(appID: job.appID, tenantID: job.tenantID, included: [segment],
                                                                   now: now, in: connection)))
        }
        file.header(options.columns.map(\.rawValue))
        var after = ""
        while true {
            let page = try connection.query("""
                SELECT s.id, s.token, s.external_id, s.platform, s.web_type, s.language, s.timezone, s.session_count,
                       to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created_at,
                       to_char(s.last_session_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_active,
                       (s.token_invalid_at IS NOT NULL OR NOT s.enabled OR s.retired_at IS NOT NULL) AS invalid_identifier,
                       s.tags::text AS tags, s.country,
                       (s.enabled AND s.retired_at IS NULL) AS subscribed, s.notification_types::bigint AS notification_types,
                       s.device_model, s.device_os, s.app_version,
                       s.badge_count
                FROM subscriptions s
                WHERE \(filter) AND s.id > \(after)
                ORDER BY s.id LIMIT \(ExportLimits.pageSize)
                """)
            for row in page {
                file.row(try options.columns.map { try field($0, of: row) })
            }
            try file.endPage()
            guard page.count == ExportLimits.pageSize, let last = page.last else { return }
            after = try last.decode("id")
        }
    }

    private static func field(_ column: SubscriptionExportColumn, of row: PostgresRow) throws -> String {
        switch column {
        case .id: try row.decode("id")
        case .identifier: try row.decode("token")
        case .externalUserID: try row.decode("external_id", as: String?.self) ?? ""
        case .deviceType: String(OneSignalDeviceType.of(platform: try row.decode("platform"), webType: try row.decode("web_type")))
        case .language: try row.decode("language", as: String?.self) ?? ""
        case .timezone: try row.decode("timezone", as: String?.self) ?? ""
        case .sessionCount: String(try row.decode("session_count", as: Int.self))
        case .createdAt: try row.decode("created_at")
        case .lastActive: try row.decode("last_active")
        // OneSignal's meaning and spelling: `t` not reachable (unsubscribed, or its token dead), `f` subscribed.
        case .invalidIdentifier: try row.decode("invalid_identifier", as: Bool.self) ? "t" : "f"
        case .tags: try row.decode("tags")
        case .country: try row.decode("country", as: String?.self) ?? ""
        case .notificationTypes:
            String(OneSignalSubscriptionFields.shownNotificationTypes(stored: try row.decode("notification_types"),
                                                                      subscribed: try row.decode("subscribed")))
        case .deviceModel: try row.decode("device_model", as: String?.self) ?? ""
        case .deviceOS: try row.decode("device_os", as: String?.self) ?? ""
        case .gameVersion: try row.decode("app_version", as: String?.self) ?? ""
        case .badgeCount: String(try row.decode("badge_count", as: Int.self))
        }
    }
}
