/// The push service a device is reached through, decided by its platform: Apple's devices
/// through APNs, Android devices through Firebase Cloud Messaging (HTTP v1).
package enum PushService: String, Sendable, Hashable, CaseIterable {
    case apns
    case fcm

    /// The service of a stored `platform` (`ios`, `watchos`, `macos`, `android`).
    package init(platform: String) {
        self = platform == "android" ? .fcm : .apns
    }
}
