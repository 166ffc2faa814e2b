/// OneSignal's subscription `type` names. OpenPush sends through APNs, FCM and Web Push, so only
/// the Apple push types, `AndroidPush` and the four browsers' types name a device it can hold; the
/// others are refused with a message saying so.
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
    case edgePush = "EdgePush"
    case email = "Email"
    case sms = "SMS"

    /// The types OpenPush stores a device for.
    package static let supported: [OneSignalSubscriptionType] = [
        .iOSPush, .macOSPush, .androidPush, .chromePush, .firefoxPush, .safariPush, .edgePush,
    ]

    /// The `platform` a new device of this type gets; nil for a type OpenPush cannot send to.
    package var platform: String? {
        switch self {
        case .iOSPush: "ios"
        case .macOSPush: "macos"
        case .androidPush: "android"
        case .chromePush, .firefoxPush, .safariPush, .edgePush: "web"
        default: nil
        }
    }

    /// The browser of a web type; nil for the others.
    package var browser: WebPushBrowser? { WebPushBrowser(oneSignalType: rawValue) }

    /// The type of a browser's subscriptions.
    package init(_ browser: WebPushBrowser) {
        switch browser {
        case .chrome: self = .chromePush
        case .firefox: self = .firefoxPush
        case .safari: self = .safariPush
        case .edge: self = .edgePush
        }
    }

    /// The type a stored device of `platform` shows as (a watchOS device shows as `iOSPush`; a
    /// browser as its stored `web_type`).
    package static func of(platform stored: String, webType: String? = nil) -> OneSignalSubscriptionType {
        switch stored {
        case "macos": .macOSPush
        case "android": .androidPush
        case "web": webType.flatMap(WebPushBrowser.init(oneSignalType:)).map(OneSignalSubscriptionType.init) ?? .chromePush
        default: .iOSPush
        }
    }

    /// The push service its token belongs to, which decides how the token is checked.
    package var service: PushService {
        switch self {
        case .androidPush: .fcm
        case .chromePush, .firefoxPush, .safariPush, .edgePush: .webPush
        default: .apns
        }
    }

    /// Whether a stored device of `platform` is of this type (a watchOS device shows as `iOSPush`).
    package func matches(platform stored: String) -> Bool {
        switch self {
        case .iOSPush: stored == "ios" || stored == "watchos"
        case .macOSPush: stored == "macos"
        case .androidPush: stored == "android"
        case .chromePush, .firefoxPush, .safariPush, .edgePush: stored == "web"
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
        case .fireOSPush, .huaweiPush:
            return "\(key) '\(name)' is not supported: OpenPush reaches Android devices through Firebase Cloud Messaging "
                + "only (AndroidPush), not Amazon's or Huawei's push services; it supports \(supportedNames)"
        default:
            return "\(key) '\(name)' is not supported: OpenPush sends to Apple and Android devices and to browsers "
                + "through Web Push only (\(supportedNames))"
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
