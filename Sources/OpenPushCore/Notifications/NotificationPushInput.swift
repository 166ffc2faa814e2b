/// What one notification push to one device is built from: the validated send, the texts
/// already rendered for this recipient, the recipient's badge number, the app's bundle ids and
/// the expiry. Pure data; `NotificationPayload.build` turns it into the APNs request.
package struct NotificationPushInput: Sendable {
    package var send: NotificationSend
    package var title: String?
    package var subtitle: String?
    package var body: String?
    /// The absolute badge to show (the subscription's counter after this push), if any.
    package var badge: Int?
    package var bundleID: String
    package var watchBundleID: String?
    /// The subscription's platform: `ios`, `watchos` or `macos`.
    package var platform: String
    /// The delivery row's fixed UUID.
    package var apnsID: String
    /// The message id: OneSignal's notification id `os_data.i`.
    package var messageID: String
    /// `apns-expiration`, unix seconds (0: try once).
    package var expiration: Int
    /// How the texts were chosen for this device (`AlertPrivacy`): a hidden or ids-only push
    /// carries less than the texts' replacement.
    package var privacy: AlertPrivacy.Shape = .full

    package init(send: NotificationSend, title: String? = nil, subtitle: String? = nil, body: String? = nil,
                badge: Int? = nil, bundleID: String, watchBundleID: String? = nil, platform: String = "ios",
                apnsID: String, messageID: String = "", expiration: Int) {
        self.send = send
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.bundleID = bundleID
        self.watchBundleID = watchBundleID
        self.platform = platform
        self.apnsID = apnsID
        self.messageID = messageID
        self.expiration = expiration
    }
}
