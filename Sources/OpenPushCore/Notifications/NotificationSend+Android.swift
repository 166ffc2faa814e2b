/// A notification's fields as an FCM message takes them.
extension NotificationSend {
    /// The Android-only fields with those Android shares with Apple devices: collapse id,
    /// priority, ttl, tap URL, `content_available` and `data`.
    package var androidFields: AndroidNotificationFields {
        var fields = android
        fields.collapseID = collapseID
        fields.priority = priority
        fields.ttl = ttl
        fields.url = launchURL
        fields.contentAvailable = contentAvailable
        fields.data = data
        return fields
    }
}
