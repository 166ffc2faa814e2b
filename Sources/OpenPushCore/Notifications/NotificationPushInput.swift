/// What one notification push to one device is built from: the validated send, the texts
/// already rendered for this recipient, the recipient's badge number, the app's bundle ids and
/// the expiry. Pure data; `NotificationPayload.build` turns it into the APNs request.
public struct NotificationPushInput: Sendable {
    public var send: NotificationSend
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// The absolute badge to show (the subscription's counter after this push), if any.
    public var badge: Int?
    public var bundleID: String
    public var watchBundleID: String?
    /// The subscription's platform: `ios`, `watchos` or `macos`.
    public var platform: String
    /// The delivery row's fixed UUID.
    public var apnsID: String
    /// The message id: OneSignal's notification id `os_data.i`.
    public var messageID: String
    /// `apns-expiration`, unix seconds (0: try once).
    public var expiration: Int
    /// How the texts were chosen for this device (`AlertPrivacy`): a hidden or ids-only push
    /// carries less than the texts' replacement.
    public var privacy: AlertPrivacy.Shape = .full

    public init(send: NotificationSend, title: String? = nil, subtitle: String? = nil, body: String? = nil,
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
