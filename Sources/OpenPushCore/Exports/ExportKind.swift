/// What an export's file holds. Stored as the raw value (`exports.kind`).
package enum ExportKind: String, Sendable, CaseIterable {
    /// `POST /players/csv_export`: the app's subscriptions.
    case subscriptions
    /// `POST /notifications/{id}/history` with `events: sent`: the message's per-device records.
    case notificationSent = "notification_sent"
    /// … with `events: clicked`: the devices' first taps.
    case notificationClicked = "notification_clicked"
    /// `POST /notifications/{id}/export_events`: every record and every tap, with times.
    case notificationEvents = "notification_events"

    package var isNotificationHistory: Bool { self != .subscriptions }

    /// The file's header line's columns, for the history kinds (subscriptions choose theirs).
    package var historyColumns: [String] {
        switch self {
        case .subscriptions: []
        case .notificationSent: ["player_id", "external_user_id", "device_type", "state", "error_reason", "timestamp"]
        case .notificationClicked: ["player_id", "external_user_id", "device_type", "timestamp"]
        case .notificationEvents: ["event", "player_id", "external_user_id", "device_type", "state", "error_reason", "timestamp"]
        }
    }

    /// The start of the file's name, after OneSignal's (`events_audience-activity-…`).
    package var fileStem: String {
        switch self {
        case .subscriptions: "subscriptions"
        case .notificationSent: "history-sent"
        case .notificationClicked: "history-clicked"
        case .notificationEvents: "events"
        }
    }
}
