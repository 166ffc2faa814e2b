/// A validated send as a message stores it: its kind follows from it.
package enum MessageSend: Sendable, Equatable {
    case notification(NotificationSend)
    case liveActivity(LiveActivitySend)

    package var kind: MessageKind {
        switch self {
        case .notification: .notification
        case .liveActivity: .liveActivity
        }
    }

    /// The canonical form `messages.send` holds (`StoredSend`).
    package var stored: JSONValue {
        switch self {
        case .notification(let send): StoredSend.encode(send)
        case .liveActivity(let send): StoredSend.encode(send)
        }
    }

    /// When the workers may start on it: a notification's `send_after`, never before `now`.
    /// A Live Activity push is queued at once and has none.
    package func sendAfter(now: Double) -> Double? {
        guard case .notification(let send) = self else { return nil }
        return max(send.sendAfter ?? now, now)
    }
}
