import OpenPushCore
import OpenPushDelivery
import Postgres

extension AppStore {
    /// `dedupe_window_days` and `stale_alert_seconds` of a new app, where its body gave them
    /// (the columns' defaults otherwise).
    static func setAlertGates(_ gates: AppAlertGateFields, appID: String, in connection: PostgresConnection) throws {
        let assignments = alertGateAssignments(gates)
        guard !assignments.isEmpty else { return }
        try connection.query("UPDATE apps SET \(assignments.joined(separator: ", ")) WHERE id = \(appID)")
    }

    /// The `SET` parts of an update that changes them.
    static func alertGateAssignments(_ gates: AppAlertGateFields) -> [PostgresQuery] {
        var assignments: [PostgresQuery] = []
        if let days = gates.dedupeWindowDays { assignments.append("dedupe_window_days = \(days)") }
        if let seconds = gates.staleAlertSeconds { assignments.append("stale_alert_seconds = \(seconds)") }
        return assignments
    }
}
