/// `messages.expansion`: where a notification's audience expansion stands. Live Activity
/// messages, queued with their audience, have none (`NULL`).
package enum MessageExpansion: String, Sendable, Equatable, CaseIterable {
    case pending
    case done
    case cancelled
    case failed
}
