/// What a message sends, as `messages.kind` stores it: a notification, whose audience the
/// workers expand later, or a Live Activity push (a channel broadcast is one too), queued with
/// its audience when it is sent.
package enum MessageKind: String, Sendable, Equatable, CaseIterable {
    case notification
    case liveActivity = "live_activity"

    /// Whether the message's audience is expanded into jobs by the workers after it is stored.
    package var expands: Bool { self == .notification }
}
