/// Which queue a message's jobs wait in. Workers take the urgent lane first: a Live Activity
/// update minutes late is worthless, a newsletter minutes late is not.
package enum DeliveryLane: Int, Sendable, Comparable, CaseIterable {
    /// Live Activity pushes, alerts marked `time-sensitive` or `critical`, VoIP and push-to-talk pushes.
    case urgent = 0
    /// Every other notification.
    case bulk = 1

    package static func < (lhs: DeliveryLane, rhs: DeliveryLane) -> Bool { lhs.rawValue < rhs.rawValue }

    package static func forNotification(interruptionLevel: InterruptionLevel?, kind: NotificationKind = .alert) -> DeliveryLane {
        // A call or a voice message waiting behind a newsletter rings too late.
        if kind == .voip || kind == .pushToTalk { return .urgent }
        return switch interruptionLevel {
        case .timeSensitive?, .critical?: .urgent
        default: .bulk
        }
    }
}
