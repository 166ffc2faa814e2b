import OpenPushCore
import OpenPushDelivery
import Postgres

/// An app's delivery policy settings: read with `AppRecord`, written on creation (the columns'
/// defaults stand for those not given) and by `PUT /apps/{id}` (`AppStore.update`).
enum DeliveryPolicySettings {
    /// Every delivery policy column of `apps`, read through the row's JSON, so an app can still be
    /// read (at the defaults) under a schema from before these columns, as in the middle of an
    /// upgrade. Decoded as optionals: `AppRecord` supplies the defaults.
    static let columns: PostgresQuery = """
        (to_jsonb(apps) ->> 'live_activity_update_interval_seconds')::int AS live_activity_update_interval_seconds,
        (to_jsonb(apps) ->> 'widget_push_interval_seconds')::int AS widget_push_interval_seconds,
        (to_jsonb(apps) ->> 'dedupe_window_days')::int AS dedupe_window_days,
        (to_jsonb(apps) ->> 'stale_alert_seconds')::int AS stale_alert_seconds,
        to_jsonb(apps) ->> 'default_privacy_text' AS default_privacy_text
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
