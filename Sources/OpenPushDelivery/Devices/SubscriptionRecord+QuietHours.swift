import OpenPushCore

extension SubscriptionRecord {
    /// The stored quiet hours (`quiet_hours_start`/`_end`, minutes after midnight), if any.
    static func quietHours(start: Int16?, end: Int16?) -> QuietHoursWindow? {
        guard let start, let end else { return nil }
        return QuietHoursWindow(start: Int(start), end: Int(end))
    }
}
