/// What a send must be to reach browsers, checked when it is made: its largest plaintext fits
/// one push (`WebPushRequest.maxPlaintextBytes`). Texts are measured as written (Liquid
/// unrendered), with the longest ids a push carries.
extension NotificationSend {
    /// The size of the largest plaintext this send's browser pushes would carry (any language).
    package var largestWebPushPlaintext: Int {
        let languages = Set((headings ?? [:]).keys).union((contents ?? [:]).keys).union(["en"])
        let longestID = String(repeating: "x", count: 64)
        var largest = 0
        for language in languages {
            let title = headings.flatMap { $0[language] ?? $0["en"] }
            let body = contents.flatMap { $0[language] ?? $0["en"] }
            let texts = privacy == .idsOnly
                ? AlertPrivacy.Texts(body: privacyText.flatMap { $0[language] ?? $0["en"] }, shape: .idsOnly)
                : AlertPrivacy.Texts(title: title, body: body, shape: .full)
            let payload = DeliveryPlanner.webPushPayload(self, texts: texts, messageID: longestID)
            largest = max(largest, payload.body(subscriptionID: longestID).count)
        }
        return largest
    }

    /// Whether this send can reach a browser at all: alerts and background pushes can, unless
    /// `isAnyWeb: false`; widget reloads and the extra token kinds are Apple's alone.
    package var mayReachBrowsers: Bool {
        (kind == .alert || kind == .background) && !excludedServices.contains(.webPush)
    }

    /// Why browsers cannot be sent this, if they cannot: the web push payload's size.
    package var webPushProblem: String? {
        guard mayReachBrowsers else { return nil }
        let size = largestWebPushPlaintext
        return size > WebPushRequest.maxPlaintextBytes ? WebNotificationFields.Messages.payloadTooLarge(size) : nil
    }
}
