/// The push service a device is reached through, decided by its platform: Apple's devices
/// through APNs, Android devices through Firebase Cloud Messaging (HTTP v1), browsers through
/// Web Push (RFC 8030) at the push service their subscription's endpoint names.
package enum PushService: String, Sendable, Hashable, CaseIterable {
    case apns
    case fcm
    case webPush = "webpush"

    /// The service of a stored `platform` (`ios`, `watchos`, `macos`, `android`, `web`).
    package init(platform: String) {
        switch platform {
        case "android": self = .fcm
        case "web": self = .webPush
        default: self = .apns
        }
    }
}
