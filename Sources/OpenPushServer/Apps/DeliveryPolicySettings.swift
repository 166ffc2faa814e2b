import OpenPushCore
import OpenPushDelivery
import Postgres

/// An app's delivery policy settings: read with `AppRecord`, written on creation (the columns'
/// defaults stand for those not given) and by `PUT /apps/{id}` (`AppStore.update`).
enum DeliveryPolicySettings {
    /// Every delivery policy column of `apps`, read through the row's JSON, so an app can still be
    /// read (at the defaults) under a schema from before these columns, as in the middle of an
    /// upgrade. Decoded as optionals: `AppRecord` supplies the defaults. The JSON is `policy.doc`
    /// (`source`), made once per row, without the sealed secrets, which it need not carry.
    static let columns: PostgresQuery = """
        (policy.doc ->> 'live_activity_update_interval_seconds')::int AS live_activity_update_interval_seconds,
        (policy.doc ->> 'widget_push_interval_seconds')::int AS widget_push_interval_seconds,
        (policy.doc ->> 'dedupe_window_days')::int AS dedupe_window_days,
        (policy.doc ->> 'stale_alert_seconds')::int AS stale_alert_seconds,
        policy.doc ->> 'default_privacy_text' AS default_privacy_text
        """

    /// What follows `FROM apps` to give `columns` their `policy.doc`. `OFFSET 0` keeps it a
    /// subquery made once per row, rather than an expression the planner copies into each column.
    static let source: PostgresQuery = """
        CROSS JOIN LATERAL (SELECT to_jsonb(apps) - 'apns_p8' - 'apns_certificate' - 'fcm_service_account'
                                   - 'web_push_vapid_private_key' AS doc OFFSET 0) AS policy
        """

    static func decode(_ row: PostgresRow) throws -> (liveActivityUpdate: Int, widgetPush: Int) {
        let coalescing: Int? = try row.decode("live_activity_update_interval_seconds")
        let widgets: Int? = try row.decode("widget_push_interval_seconds")
        return (coalescing ?? LiveActivityCoalescing.defaultInterval, widgets ?? WidgetThrottle.defaultInterval)
    }

    static func apply(_ settings: AppSettings, appID: String, in connection: PostgresConnection) throws {
        if let seconds = settings.liveActivityUpdateIntervalSeconds {
            try connection.query("UPDATE apps SET live_activity_update_interval_seconds = \(seconds) WHERE id = \(appID)")
        }
        if let seconds = settings.widgetPushIntervalSeconds {
            try connection.query("UPDATE apps SET widget_push_interval_seconds = \(seconds) WHERE id = \(appID)")
        }
    }
}
