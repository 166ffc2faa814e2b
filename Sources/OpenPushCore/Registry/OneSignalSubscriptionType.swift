/// OneSignal's subscription `type` names. OpenPush sends through APNs, so only the Apple push
/// types name a device it can hold; the others are refused with a message saying so.
package enum OneSignalSubscriptionType: String, Sendable, CaseIterable {
    case iOSPush
    case macOSPush
    case androidPush = "AndroidPush"
    case fireOSPush = "FireOSPush"
    case huaweiPush = "HuaweiPush"
    case chromeExtensionPush = "ChromeExtensionPush"
    case chromePush = "ChromePush"
    case windowsPush = "WindowsPush"
    case safariLegacyPush = "SafariLegacyPush"
    case firefoxPush = "FirefoxPush"
    case safariPush = "SafariPush"
    case email = "Email"
    case sms = "SMS"

    /// The types OpenPush stores a device for.
    package static let supported: [OneSignalSubscriptionType] = [.iOSPush, .macOSPush]

    /// The `platform` a new device of this type gets; nil for a type OpenPush cannot send to.
    package var platform: String? {
        switch self {
        case .iOSPush: "ios"
        case .macOSPush: "macos"
        default: nil
        }
    }

    /// Whether a stored device of `platform` is of this type (a watchOS device shows as `iOSPush`).
    package func matches(platform stored: String) -> Bool {
        switch self {
        case .iOSPush: stored == "ios" || stored == "watchos"
        case .macOSPush: stored == "macos"
        default: false
        }
    }

    /// Why `name` (a body field or path parameter, `key`) is not a type OpenPush can hold.
    package static func problem(_ name: String, key: String) -> String? {
        let supportedNames = supported.map(\.rawValue).joined(separator: ", ")
        guard let type = OneSignalSubscriptionType(rawValue: name) else {
            return "\(key) '\(name)' is not a OneSignal subscription type; OpenPush supports \(supportedNames)"
        }
        guard type.platform == nil else { return nil }
        switch type {
        case .androidPush, .fireOSPush, .huaweiPush:
            return "\(key) '\(name)' is not supported yet: OpenPush sends to Apple devices (\(supportedNames)); "
                + "Android (FCM) is not available yet"
        default:
            return "\(key) '\(name)' is not supported: OpenPush sends to Apple devices only (\(supportedNames))"
        }
    }
}

extension FieldReader {
    /// A subscription `type` OpenPush can hold; anything else is a problem naming `key`.
    package mutating func subscriptionType(_ key: String, required: Bool = false) -> OneSignalSubscriptionType? {
        guard let name = string(key, required: required) else { return nil }
        if let problem = OneSignalSubscriptionType.problem(name, key: key) {
            self.problem(problem)
            return nil
        }
        return OneSignalSubscriptionType(rawValue: name)
    }
}
