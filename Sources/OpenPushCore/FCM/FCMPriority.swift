/// `android.priority` of an FCM v1 message. OneSignal's `priority` 10 is `HIGH` (shown at once,
/// may wake the device), 5 is `NORMAL` (may wait for the device to wake).
package enum FCMPriority: String, Sendable, Hashable {
    case high = "HIGH"
    case normal = "NORMAL"

    /// The request's `priority` if it gave one, else `HIGH` for a push that stands for a visible
    /// notification and `NORMAL` for a data-only one.
    package init(requested: Int?, visible: Bool) {
        switch requested {
        case 10?: self = .high
        case 5?: self = .normal
        default: self = visible ? .high : .normal
        }
    }
}
