/// The `apns-push-type` header. An open list; each type knows how its topic is spelled.
public struct APNSPushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let alert = APNSPushType(rawValue: "alert")
    public static let background = APNSPushType(rawValue: "background")
    public static let liveActivity = APNSPushType(rawValue: "liveactivity")
    public static let widgets = APNSPushType(rawValue: "widgets")
    public static let voip = APNSPushType(rawValue: "voip")
    public static let complication = APNSPushType(rawValue: "complication")
    public static let fileProvider = APNSPushType(rawValue: "fileprovider")
    public static let mdm = APNSPushType(rawValue: "mdm")
    public static let location = APNSPushType(rawValue: "location")
    public static let pushToTalk = APNSPushType(rawValue: "pushtotalk")

    /// What follows the bundle id in `apns-topic`.
    public var topicSuffix: String {
        switch self {
        case .liveActivity: ".push-type.liveactivity"
        case .widgets: ".push-type.widgets"
        default: ""
        }
    }

    /// The topic for a device: a `watchos` device gets the watch app's bundle id when the app
    /// has one, every other device the app's bundle id.
    public func topic(bundleID: String, watchBundleID: String?, platform: String) -> String {
        let base = if platform == "watchos", let watchBundleID, !watchBundleID.isEmpty { watchBundleID } else { bundleID }
        return base + topicSuffix
    }
}
