/// The `apns-push-type` header. An open list: Apple adds types, and a new one must not
/// need a release of this module to be sent.
public struct APNSPushType: RawRepresentable, Sendable, Hashable {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

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
}
