/// Which of a device's tokens a push goes to. It decides the push's type and what a dead token
/// kills (the contract's "Lifecycle"): a push-to-start token is deleted, an update token ends
/// only its activity, a device token stops ordinary pushes, a widget token is dropped.
package enum TokenKind: String, Sendable, Hashable, CaseIterable {
    case device
    case update
    case pushToStart = "push_to_start"
    case widget
    /// A broadcast channel (iOS 18): a job's one recipient, its APNs channel id the token.
    case channel
    /// A device's extra token of one kind (`ExtraTokenKind`, `device_push_tokens`): a rejected
    /// one is deleted alone, the device and its other tokens untouched.
    case voip
    case location
    case pushToTalk = "pushtotalk"
    case complication
    case fileProvider = "fileprovider"

    /// Spelled as the extra kind is (`ExtraTokenKindTests` holds every kind to it).
    package init(_ extra: ExtraTokenKind) {
        self.init(rawValue: extra.rawValue)!
    }

    /// The extra token kind it is, if it is one.
    package var extraKind: ExtraTokenKind? {
        ExtraTokenKind(rawValue: rawValue)
    }

    /// A device or widget token is the subscription's own, read when its job runs: a device
    /// that registered a new token after the send was queued (a reinstall, a restore, hours
    /// before a send at its local time) gets the push on it. Its job holds no tokens. A Live
    /// Activity's tokens belong to what was read at the send, so its jobs carry them. A
    /// device's extra tokens are read when sent, as its ordinary one.
    package var isReadWhenSent: Bool {
        switch self {
        case .device, .widget, .voip, .location, .pushToTalk, .complication, .fileProvider: true
        case .update, .pushToStart, .channel: false
        }
    }
}

/// The APNs environment a device registered for: its pushes go to that endpoint only.
package enum DeviceEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}
