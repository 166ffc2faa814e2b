/// Which of a device's tokens a push goes to. It decides the push's type and what a dead token
/// kills (the contract's "Lifecycle"): a push-to-start token is deleted, an update token ends
/// only its activity, a device token stops ordinary pushes, a widget token is dropped.
public enum TokenKind: String, Sendable, Hashable, CaseIterable {
    case device
    case update
    case pushToStart = "push_to_start"
    case widget
    /// A broadcast channel (iOS 18): one recipient, sent by `ChannelBroadcastDelivery`.
    case channel
}

/// The APNs environment a device registered for: its pushes go to that endpoint only.
public enum DeviceEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}
