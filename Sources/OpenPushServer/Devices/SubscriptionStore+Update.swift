package import OpenPushCore
import OpenPushDelivery
package import Postgres

extension SubscriptionStore {
    /// Applies a backend's `PATCH`: `enabled` (or OneSignal's `notification_types`) and the device
    /// metadata replace, tags merge (`""` removes a tag), device preferences replace. Tags that
    /// would go over `TagLimits.maxKeys` are a `400`: the caller's transaction then stores nothing.
    package static func update(id: String, appID: String, _ changes: SubscriptionChanges, now: Double,
                              in connection: PostgresConnection) throws {
        let tags = changes.tags ?? .none
        let fields = changes.oneSignal
        let tagsBefore = tags.assignsKeys ? try TagBound.lockedCount("subscriptions WHERE app_id = \(appID) AND id = \(id)", in: connection) : 0
        let updated = try connection.query("""
            UPDATE subscriptions
            SET enabled = COALESCE(\(changes.enabled)::boolean, enabled),
                tags = (tags || \(tags.setJSON)::jsonb) - \(tags.removed)::text[],
                hide_details = COALESCE(\(changes.hideDetails)::boolean, hide_details),
                app_version = COALESCE(\(fields.appVersion)::text, app_version),
                device_model = COALESCE(\(fields.deviceModel)::text, device_model),
                device_os = COALESCE(\(fields.deviceOS)::text, device_os),
                environment = COALESCE(\(fields.environment?.rawValue)::text, environment),
                sdk = COALESCE(\(fields.sdk)::text, sdk),
                session_time = COALESCE(\(fields.sessionTime)::bigint, session_time),
                updated_at = to_timestamp(\(now))
            WHERE app_id = \(appID) AND id = \(id)
            RETURNING \(TagBound.count)
            """)
        if tags.assignsKeys, let row = updated.first {
            try TagBound.check(before: tagsBefore, after: try row.decode("tag_count"), holder: .device)
        }
        try applyAttention(id: id, appID: appID, quietHours: changes.quietHours, mutedThreads: changes.mutedThreads,
                           in: connection)
    }
}
