/// What an event reports. Endpoints subscribe by these names (or `*`), and the feed filters by them.
package enum EventType: String, Sendable, Hashable, CaseIterable {
    /// APNs answered 200.
    case deliveryAccepted = "delivery.accepted"
    /// A permanent rejection, or given up after the retries.
    case deliveryFailed = "delivery.failed"
    /// A token died (410, `BadDeviceToken`, …).
    case tokenInvalidated = "token.invalidated"
    /// The last delivery of a message is final.
    case notificationCompleted = "notification.completed"
    /// A Live Activity update token registered or refreshed.
    case liveActivityRegistered = "live_activity.registered"
    /// Ended by the device, a remote end, a dead token or retirement.
    case liveActivityEnded = "live_activity.ended"
    /// The app's APNs certificate expires within thirty days (once per certificate).
    case appCredentialsExpiring = "app.credentials_expiring"
    /// A tap on a Live Activity or a notification.
    case click
    /// The webhook test route.
    case ping

    /// `*`: every type.
    package static let wildcard = "*"
}
