/// OneSignal's web fields of a `POST /notifications` body, as a browser push takes them: the
/// notification's icon, image and badge URLs, the page a tap opens, the `Topic` header and the
/// browsers the sender left out (`isAnyWeb`, `isChromeWeb`, `isFirefox`, `isSafari`, `isEdge`).
package struct WebNotificationFields: Sendable, Hashable {
    /// `chrome_web_icon`, else `firefox_icon`.
    package var icon: String?
    /// `chrome_web_image`.
    package var image: String?
    /// `chrome_web_badge`.
    package var badge: String?
    /// `web_url`, else `url` (never `app_url`, which is for apps).
    package var url: String?
    /// `web_push_topic`: at most 32 base64url characters (checked when parsed).
    package var topic: String?
    /// The browsers whose subscriptions the send leaves out.
    package var excludedBrowsers: Set<WebPushBrowser> = []

    package init(icon: String? = nil, image: String? = nil, badge: String? = nil, url: String? = nil, topic: String? = nil,
                 excludedBrowsers: Set<WebPushBrowser> = []) {
        self.icon = icon
        self.image = image
        self.badge = badge
        self.url = url
        self.topic = topic
        self.excludedBrowsers = excludedBrowsers
    }

    /// Every browser left out: no web subscription is a recipient.
    package var excludesEveryBrowser: Bool { excludedBrowsers.count == WebPushBrowser.allCases.count }

    /// The OneSignal flag that leaves out each browser's subscriptions.
    package static func flag(of browser: WebPushBrowser) -> String {
        switch browser {
        case .chrome: "isChromeWeb"
        case .firefox: "isFirefox"
        case .safari: "isSafari"
        case .edge: "isEdge"
        }
    }

    /// The platform flags, `isAnyWeb` first.
    package static let flags = ["isAnyWeb"] + WebPushBrowser.allCases.map(flag(of:))

    /// The URL fields, each checked as `url` is.
    package static let urlFields = ["chrome_web_icon", "firefox_icon", "chrome_web_image", "chrome_web_badge", "web_url"]

    package enum Messages {
        package static let topic =
            "web_push_topic must be at most 32 characters of the URL-safe base64 alphabet (A–Z, a–z, 0–9, - and _)"

        package static func payloadTooLarge(_ bytes: Int) -> String {
            "the web push payload (title, body, icon, image, badge, url, tag and data as JSON) is \(bytes) bytes: "
                + "a browser push carries at most \(WebPushRequest.maxPlaintextBytes)"
        }
    }

    /// The excluded browsers of a body's flags: `isAnyWeb: false` leaves out all of them, each
    /// browser's own flag `false` leaves out that one.
    static func readExclusions(_ reader: inout FieldReader) -> Set<WebPushBrowser> {
        let anyWeb = reader.bool("isAnyWeb")
        var excluded: Set<WebPushBrowser> = anyWeb == false ? Set(WebPushBrowser.allCases) : []
        for browser in WebPushBrowser.allCases where reader.bool(flag(of: browser)) == false { excluded.insert(browser) }
        return excluded
    }
}
