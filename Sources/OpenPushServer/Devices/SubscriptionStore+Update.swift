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
                -- Kept as sent; `enabled` sent alone leaves no reason to read back.
                notification_types = CASE WHEN \(changes.enabled)::boolean IS NULL THEN notification_types
                                          ELSE \(fields.notificationTypes)::integer END,
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

extension SubscriptionStore {
    /// Moves a device to a new token (a change by id): pushes go to it from now on, ordinary ones
    /// too (a token an earlier push found dead was the old one). A token another device of the app
    /// holds is a `409`, a retired one's too: one token is one row, and which device the backend
    /// meant is not for OpenPush to guess.
    package static func changeToken(id: String, appID: String, to change: SubscriptionTokenChange, now: Double,
                                   in connection: PostgresConnection) throws {
        do {
            try connection.query("""
                UPDATE subscriptions
                SET token = \(change.token), token_invalid_at = NULL,
                    web_p256 = COALESCE(\(change.web?.p256dh)::text, web_p256),
                    web_auth = COALESCE(\(change.web?.auth)::text, web_auth),
                    web_type = COALESCE(\(change.web.map { OneSignalSubscriptionType($0.browser).rawValue })::text, web_type),
                    updated_at = to_timestamp(\(now))
                WHERE app_id = \(appID) AND id = \(id)
                """)
        } catch let error as PostgresError where error.isUniqueViolation {
            // `UNIQUE (app_id, token)`. Not naming the holder: on a shared demo app it may be
            // another tenant's device.
            throw APIError(status: 409, "subscription.token is already another subscription's token in this app")
        }
    }
}
