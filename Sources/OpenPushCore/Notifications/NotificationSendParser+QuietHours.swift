extension NotificationSendParser {
    package static let quietHoursModeMessage =
        "quiet_hours must be one of: " + QuietHoursMode.allCases.map(\.rawValue).joined(separator: ", ")

    /// `quiet_hours`: `silence` (the default), `defer` or `ignore`. Accepted on every kind;
    /// only alerts are affected.
    static func readQuietHoursMode(_ reader: inout FieldReader) -> QuietHoursMode {
        switch reader.value("quiet_hours") {
        case nil, .null?:
            return .default
        case .string(let text)?:
            guard let mode = QuietHoursMode(rawValue: text) else {
                reader.problem(quietHoursModeMessage)
                return .default
            }
            return mode
        case let other?:
            reader.problem(quietHoursModeMessage + ", got \(other.typeName)")
            return .default
        }
    }
}
