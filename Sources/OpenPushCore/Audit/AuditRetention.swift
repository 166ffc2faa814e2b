/// How long audit log entries are kept: a year, then the engine's maintenance deletes them.
package enum AuditRetention {
    package static let days = 365

    /// Entries that occurred before this instant (unix seconds) are past their year.
    package static func cutoff(now: Double) -> Double {
        now - Double(days) * 86_400
    }
}
