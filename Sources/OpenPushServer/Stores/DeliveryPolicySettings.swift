import Postgres

/// Writes a new app's delivery policy settings; the columns' defaults stand for those not given.
enum DeliveryPolicySettings {
    static func apply(_ settings: AppSettings, appID: String, in connection: PostgresConnection) throws {
        if let seconds = settings.liveActivityUpdateIntervalSeconds {
            try connection.query("UPDATE apps SET live_activity_update_interval_seconds = \(seconds) WHERE id = \(appID)")
        }
        if let seconds = settings.widgetPushIntervalSeconds {
            try connection.query("UPDATE apps SET widget_push_interval_seconds = \(seconds) WHERE id = \(appID)")
        }
    }
}
