/// Decides the texts an alert carries to one device: its own (full), the privacy text instead
/// (the device hides details, or the message is ids-only), the privacy text because its own all
/// rendered empty (never a blank notification), or nothing at all (blank: not sent). Pure: the
/// texts come in already rendered for the device.
package enum AlertPrivacy {
    /// The app's `default_privacy_text` when it was never set.
    package static let defaultPrivacyText = "New notification"
    package static let defaultPrivacyTextMaxLength = 255

    /// How the push is worded; the payload builder strips more than the texts for some.
    package enum Shape: String, Sendable, Hashable {
        /// The message's own texts.
        case full
        /// The device hides details: the privacy text as the body, no title or subtitle, and no
        /// `apns_alert` or `summary_arg` (they would word the notification too).
        case hidden
        /// Ids-only: like `hidden`, plus `mutable-content: 1` and no custom data but the
        /// request's `data` (no `os_data`: its URL, attachments and button labels are the
        /// message's).
        case idsOnly
        /// Every text rendered empty: the privacy text as the body.
        case blankFallback
    }

    package struct Texts: Sendable, Hashable {
        package var title: String?
        package var subtitle: String?
        package var body: String?
        package var shape: Shape

        package init(title: String? = nil, subtitle: String? = nil, body: String? = nil, shape: Shape) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.shape = shape
        }
    }

    package enum Decision: Sendable, Equatable {
        case send(Texts)
        /// Nothing to show and no privacy text: not sent, recorded `suppressed` reason `blank`.
        case blank
    }

    /// A notification alert to one device. `privacyText` is the message's, rendered for the
    /// device (nil when it has none); `localized` is whether `apns_alert` words it with a
    /// localization key (then it is not blank whatever the texts render to).
    package static func notification(privacy: NotificationPrivacy, hideDetails: Bool, title: String?, subtitle: String?,
                                    body: String?, privacyText: String?, defaultPrivacyText: String,
                                    localized: Bool = false) -> Decision {
        let privacyText = visible(privacyText)
        if privacy == .idsOnly {
            guard let privacyText else { return .blank }
            return .send(Texts(body: privacyText, shape: .idsOnly))
        }
        let title = visible(title), subtitle = visible(subtitle), body = visible(body)
        if title == nil, subtitle == nil, body == nil, !localized {
            guard let privacyText else { return .blank }
            // A device that hides details still gets nothing else that words the alert.
            return .send(Texts(body: privacyText, shape: hideDetails ? .hidden : .blankFallback))
        }
        if hideDetails {
            return .send(Texts(body: privacyText ?? visible(defaultPrivacyText) ?? Self.defaultPrivacyText, shape: .hidden))
        }
        return .send(Texts(title: title, subtitle: subtitle, body: body, shape: .full))
    }

    /// What a Live Activity push does with its `alert`.
    package enum LiveActivityDecision: Sendable, Equatable {
        /// The alert with these texts (`full` or `hidden`).
        case send(Texts)
        /// The texts all rendered empty: the push goes with its content state and no `alert`
        /// at all (its sound was part of the alert).
        case dropAlert
        /// A `start` whose alert rendered empty: the start is the alert, so it is not sent.
        case blank
    }

    /// A Live Activity push to one device. `hasTexts` is whether the message has headings or
    /// contents at all: one with neither (a sound-only alert, or no alert) is left as it is.
    package static func liveActivity(event: LiveActivityEvent, hasTexts: Bool, hideDetails: Bool, title: String?,
                                    body: String?, defaultPrivacyText: String) -> LiveActivityDecision {
        guard hasTexts else { return .send(Texts(title: title, body: body, shape: .full)) }
        let title = visible(title), body = visible(body)
        if title == nil, body == nil { return event == .start ? .blank : .dropAlert }
        if hideDetails { return .send(Texts(body: visible(defaultPrivacyText) ?? Self.defaultPrivacyText, shape: .hidden)) }
        return .send(Texts(title: title, body: body, shape: .full))
    }

    static func visible(_ text: String?) -> String? {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }
}
