/// The browsers' push services OpenPush knows by name, each with OneSignal's subscription type
/// and the host its push service gives endpoints on (`*.` names every subdomain).
package enum WebPushBrowser: String, Sendable, CaseIterable {
    case chrome
    case firefox
    case safari
    case edge

    /// OneSignal's `type` of a subscription of this browser.
    package var oneSignalType: String {
        switch self {
        case .chrome: "ChromePush"
        case .firefox: "FirefoxPush"
        case .safari: "SafariPush"
        case .edge: "EdgePush"
        }
    }

    /// The host pattern of this browser's push service.
    package var hostPattern: WebPushHostPattern {
        switch self {
        case .chrome: .exact("fcm.googleapis.com")
        case .firefox: .exact("updates.push.services.mozilla.com")
        case .safari: .exact("web.push.apple.com")
        case .edge: .suffix("notify.windows.com")
        }
    }

    /// The browser whose push service serves `host` (any case); nil for any other host.
    package init?(host: some StringProtocol) {
        guard let found = Self.allCases.first(where: { $0.hostPattern.matches(host) }) else { return nil }
        self = found
    }

    /// The browser of OneSignal's `type` name; nil for any other name.
    package init?(oneSignalType name: String) {
        guard let found = Self.allCases.first(where: { $0.oneSignalType == name }) else { return nil }
        self = found
    }
}
