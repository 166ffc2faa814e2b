extension NotificationSendParser {
    /// `dedupe_key`, `event_at` and `stale_after_seconds` (`AlertGates`). `null` is as absent.
    static func readAlertGates(_ reader: inout FieldReader) -> AlertGates {
        var gates = AlertGates()
        switch reader.value("dedupe_key") {
        case nil, .null?:
            break
        case .string(let key)? where AlertGates.dedupeKeyLength.contains(key.count):
            gates.dedupeKey = key
        default:
            reader.problem(AlertGates.Messages.dedupeKey)
        }
        if let value = reader.value("event_at"), value != .null {
            if let seconds = AlertGates.eventSeconds(value) {
                gates.eventAt = seconds
            } else if let number = value.doubleValue, number >= 1e11, number.isFinite {
                reader.problem(AlertGates.Messages.eventAtMilliseconds)
            } else {
                reader.problem(AlertGates.Messages.eventAt)
            }
        }
        if let value = reader.value("stale_after_seconds"), value != .null {
            if let number = value.intValue, AlertGates.staleAfterSeconds.contains(number) {
                gates.staleAfterSeconds = Int(number)
                if !reader.has("event_at") || reader.object["event_at"] == .null {
                    reader.problem(AlertGates.Messages.staleAfterNeedsEventAt)
                }
            } else {
                reader.problem(AlertGates.Messages.staleAfterSeconds)
            }
        }
        return gates
    }
}
