/// How much of a message's content one FCM push carries, after the delivery policy decided.
package enum FCMMessageContent: Sendable, Hashable {
    /// The message's own texts, image, icons, tap URL and data.
    case full
    /// The device hides details: the texts given (the privacy text as the body), no title, and
    /// nothing else that shows the message (no `notification.image`, no `large_icon`). The
    /// styling (channel, icon, color, sound, tag), the tap URL and `data` go as on iOS.
    case hiddenDetails
    /// Ids-only: a data-only message with the request's `data` and the OpenPush ids, nothing
    /// else; the app fetches and words the notification itself. `HIGH` unless the request said
    /// 5, since the app shows a notification for it.
    case idsOnly

    /// The shape `AlertPrivacy` chose for the device (a blank fallback is full: its text is the
    /// privacy text, already in the body).
    package init(_ shape: AlertPrivacy.Shape) {
        switch shape {
        case .full, .blankFallback: self = .full
        case .hidden: self = .hiddenDetails
        case .idsOnly: self = .idsOnly
        }
    }
}
