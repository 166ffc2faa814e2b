/// A browser subscription's `endpoint` (its `token`), checked at registration. Whoever holds the
/// public SDK key chooses this URL and OpenPush posts to it, so it must be `https` on a known push
/// service's host (`OPENPUSH_WEB_PUSH_HOSTS`), with no userinfo; `http://` and private or loopback
/// hosts only where webhooks may use them too (`OPENPUSH_WEBHOOKS_ALLOW_PRIVATE`). The address
/// actually connected to is checked again when sending.
package enum WebPushRegistrationEndpoint {
    /// Real endpoints are a few hundred characters; the webhook URL's bound leaves room.
    package static let maxLength = WebhookURL.maxLength

    /// What is wrong with `url` as an endpoint, worded to follow the field name; nil when it may be stored.
    package static func problem(_ url: String, hosts: [WebPushHostPattern], allowPrivate: Bool) -> String? {
        if let problem = WebhookURL.problem(url, allowPrivate: allowPrivate) {
            switch problem {
            case .tooLong: return "must be a push subscription endpoint of at most \(maxLength) characters"
            case .notHTTPS: return "must be an https:// push subscription endpoint"
            case .noHost: return "must be a push subscription endpoint with a host"
            case .privateAddress: return "must not point at a private, loopback or link-local address"
            case .malformed: return "must be a URL without spaces, control characters or credentials"
            case .badHost: return "must have an ASCII host name or an IP address"
            }
        }
        guard let host = host(of: url), hosts.contains(where: { $0.matches(host) }) else {
            return "must be on a known push service's host (" + hosts.map(\.description).joined(separator: ", ") + ")"
        }
        return nil
    }

    /// The endpoint's host, lower-cased, without brackets or port; nil when there is none.
    package static func host(of url: String) -> Substring? {
        let lowered = url.lowercased()
        guard let colon = lowered.firstIndex(of: ":"), lowered[colon...].hasPrefix("://") else { return nil }
        let authority = lowered[lowered.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return nil }
        return WebhookURL.host(of: authority)
    }

    /// The browser of a subscription: its endpoint's push service when OpenPush knows the host
    /// (whatever `type` says: the host is where the push goes), else the `type` sent, else Chrome,
    /// whose push service (FCM) serves most Chromium browsers.
    package static func browser(endpoint: String, sent: WebPushBrowser?) -> WebPushBrowser {
        if let host = host(of: endpoint), let known = WebPushBrowser(host: host) { return known }
        return sent ?? .chrome
    }
}
