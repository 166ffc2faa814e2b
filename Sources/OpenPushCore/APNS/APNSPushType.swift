/// The `apns-push-type` header. An open list; each type knows how its topic is spelled.
package struct APNSPushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    package static let alert = APNSPushType(rawValue: "alert")
    package static let background = APNSPushType(rawValue: "background")
    package static let liveActivity = APNSPushType(rawValue: "liveactivity")
    package static let widgets = APNSPushType(rawValue: "widgets")
    package static let voip = APNSPushType(rawValue: "voip")
    package static let complication = APNSPushType(rawValue: "complication")
    package static let fileProvider = APNSPushType(rawValue: "fileprovider")
    package static let mdm = APNSPushType(rawValue: "mdm")
    package static let location = APNSPushType(rawValue: "location")
    package static let pushToTalk = APNSPushType(rawValue: "pushtotalk")

    /// What follows the bundle id in `apns-topic`.
    package var topicSuffix: String {
        switch self {
        case .liveActivity: ".push-type.liveactivity"
        case .widgets: ".push-type.widgets"
        default: ""
        }
    }

    /// The topic for a device: a `watchos` device gets the watch app's bundle id when the app
    /// has one, every other device the app's bundle id.
    package func topic(bundleID: String, watchBundleID: String?, platform: String) -> String {
        let base = if platform == "watchos", let watchBundleID, !watchBundleID.isEmpty { watchBundleID } else { bundleID }
        return base + topicSuffix
    }
}
