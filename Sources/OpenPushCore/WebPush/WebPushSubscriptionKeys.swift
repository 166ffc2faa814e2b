/// A browser subscription's message-encryption keys (RFC 8291) as the browser gave them, and
/// which browser's push service it is on. Stored beside the endpoint (`web_p256`, `web_auth`,
/// `web_type`).
package struct WebPushSubscriptionKeys: Sendable, Equatable {
    /// base64url of the 65-byte uncompressed P-256 point (`p256dh`).
    package var p256dh: String
    /// base64url of the 16-byte authentication secret.
    package var auth: String
    package var browser: WebPushBrowser

    package static let authBytes = 16
    package static let publicKeyBytes = 65
    /// Longest key text accepted before decoding (65 bytes are 87 characters; padding allowed).
    static let maxKeyText = 128

    package init(p256dh: String, auth: String, browser: WebPushBrowser) {
        self.p256dh = p256dh
        self.auth = auth
        self.browser = browser
    }
}

extension FieldReader {
    /// The keys and browser of a web registration (`web_p256`, `web_auth`) for the endpoint
    /// `endpoint` (already checked), its browser the endpoint's or else `sent`'s; problems name the field.
    package mutating func webPushKeys(endpoint: String?, rules: WebPushSubscriptionRules, sent: WebPushBrowser?,
                                      p256Key: String = "web_p256", authKey: String = "web_auth") -> WebPushSubscriptionKeys? {
        let p256 = string(p256Key, required: true, maxLength: WebPushSubscriptionKeys.maxKeyText)
        let auth = string(authKey, required: true, maxLength: WebPushSubscriptionKeys.maxKeyText)
        if let p256 {
            let bytes = rules.decodeKey(p256)
            if bytes?.count != WebPushSubscriptionKeys.publicKeyBytes {
                problem("\(p256Key) must be base64url of the browser's 65-byte uncompressed P-256 public key (p256dh)"
                        + (bytes.map { ", got \($0.count) bytes" } ?? ""))
            } else if let bytes, !rules.isPublicKey(bytes) {
                problem("\(p256Key) is not a point on the P-256 curve")
            }
        }
        if let auth, rules.decodeKey(auth)?.count != WebPushSubscriptionKeys.authBytes {
            problem("\(authKey) must be base64url of the subscription's 16-byte authentication secret")
        }
        guard let p256, let auth, let endpoint else { return nil }
        return WebPushSubscriptionKeys(p256dh: p256, auth: auth, browser: WebPushRegistrationEndpoint.browser(endpoint: endpoint, sent: sent))
    }

    /// `type` of a web registration: one of the browsers' OneSignal types, or none.
    package mutating func webPushBrowser(_ key: String) -> WebPushBrowser? {
        guard let name = string(key) else { return nil }
        guard let browser = WebPushBrowser(oneSignalType: name) else {
            problem("\(key) '\(name)' is not a browser's subscription type: "
                    + WebPushBrowser.allCases.map(\.oneSignalType).joined(separator: ", "))
            return nil
        }
        return browser
    }

    /// A browser subscription's endpoint as its `key` (`token`): the token rules, then the URL's.
    package mutating func webPushEndpoint(_ key: String, required: Bool, rules: WebPushSubscriptionRules) -> String? {
        guard let endpoint = deviceToken(key, required: required, service: .webPush) else { return nil }
        if let problem = WebPushRegistrationEndpoint.problem(endpoint, hosts: rules.hosts, allowPrivate: rules.allowPrivate) {
            self.problem("\(key) \(problem)")
            return nil
        }
        return endpoint
    }
}
