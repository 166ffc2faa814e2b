/// `privacy` of `POST /notifications`: what of the message's wording may leave the server.
package enum NotificationPrivacy: String, Sendable, Equatable, CaseIterable {
    /// The headings, subtitle and contents go to APNs (the default).
    case full
    /// Only ids go to APNs: the alert body is the message's `privacy_text`, `mutable-content`
    /// is set, and the custom data is the request's `data` alone, so the app's Notification
    /// Service Extension fetches and words the real text on the device.
    case idsOnly = "ids_only"
}
