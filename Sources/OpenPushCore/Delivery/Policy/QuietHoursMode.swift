/// `POST /notifications`' `quiet_hours`: what an alert does to a device in its quiet hours.
package enum QuietHoursMode: String, Sendable, Equatable, CaseIterable {
    /// Sent at once, `interruption-level: passive` and without a sound (the default).
    case silence
    /// Held until the device's quiet hours end, then sent as usual.
    case `defer`
    /// Sent as usual.
    case ignore

    package static let `default` = QuietHoursMode.silence
}
