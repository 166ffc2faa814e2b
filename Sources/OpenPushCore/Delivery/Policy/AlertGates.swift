/// A notification's own delivery gates, as `POST /notifications` took them: `dedupe_key`,
/// `event_at` and `stale_after_seconds`. Read by `NotificationSendParser.readAlertGates`, kept in
/// the stored send, applied per device by `StalenessGate` (planning) and `AlertDedupe` (the
/// engine's claim before sending). Both gates hold back alerts only: a background or widget push
/// carries the fields without effect.
package struct AlertGates: Sendable, Equatable {
    /// Alerts with one key reach each device once per the app's `dedupe_window_days`.
    package var dedupeKey: String?
    /// When the underlying event happened, unix seconds (fractions kept).
    package var eventAt: Double?
    /// How old the event may be when the alert's turn to be sent comes; overrides the app's
    /// `stale_alert_seconds`.
    package var staleAfterSeconds: Int?

    package init(dedupeKey: String? = nil, eventAt: Double? = nil, staleAfterSeconds: Int? = nil) {
        self.dedupeKey = dedupeKey
        self.eventAt = eventAt
        self.staleAfterSeconds = staleAfterSeconds
    }

    /// `dedupe_key`: 1 to 255 characters.
    package static let dedupeKeyLength: ClosedRange<Int> = 1...255
    /// `stale_after_seconds`: a second to 30 days.
    package static let staleAfterSeconds: ClosedRange<Int64> = 1...StalenessGate.longestLimit

    package enum Messages {
        package static let dedupeKey = "dedupe_key must be a string of 1 to 255 characters"
        package static let eventAt = "event_at must be a unix timestamp in seconds or an ISO 8601 date such as 2015-09-24T14:00:00Z"
        package static let eventAtMilliseconds = "event_at must be a unix timestamp in seconds, not milliseconds"
        package static let staleAfterSeconds = "stale_after_seconds must be an integer from 1 to 2592000"
        package static let staleAfterNeedsEventAt = "stale_after_seconds needs event_at: the limit counts from the event"
    }

    /// `event_at` as unix seconds: a number (seconds, not milliseconds) or a date in a form
    /// `SendAfterDate` reads (ISO 8601 / RFC 3339 among them). `nil` when it is neither.
    package static func eventSeconds(_ value: JSONValue) -> Double? {
        if case .string(let text) = value { return SendAfterDate.unixSeconds(text) }
        guard let number = value.doubleValue, number.isFinite, number > 0, number < 1e11 else { return nil }
        return number
    }
}

/// The app's settings behind the gates: `dedupe_window_days` and `stale_alert_seconds`, as
/// `POST /apps` and `PUT /apps/{app_id}` read them (`nil`: left as it is, or its default).
package struct AppAlertGateFields: Sendable, Equatable {
    package var dedupeWindowDays: Int?
    package var staleAlertSeconds: Int?

    package init(dedupeWindowDays: Int? = nil, staleAlertSeconds: Int? = nil) {
        self.dedupeWindowDays = dedupeWindowDays
        self.staleAlertSeconds = staleAlertSeconds
    }

    package static let dedupeWindowDays: ClosedRange<Int64> = 1...Int64(AlertDedupe.longestWindowDays)
    /// 0 turns the default limit off.
    package static let staleAlertSeconds: ClosedRange<Int64> = 0...StalenessGate.longestLimit

    package var isEmpty: Bool { dedupeWindowDays == nil && staleAlertSeconds == nil }

    /// Both fields may be left out; neither may be `null` (each has a default instead).
    package static func read(_ reader: inout FieldReader) -> AppAlertGateFields {
        var fields = AppAlertGateFields()
        fields.dedupeWindowDays = reader.nonNullInteger("dedupe_window_days", in: dedupeWindowDays)
        fields.staleAlertSeconds = reader.nonNullInteger("stale_alert_seconds", in: staleAlertSeconds)
        return fields
    }
}

extension FieldReader {
    fileprivate mutating func nonNullInteger(_ key: String, in range: ClosedRange<Int64>) -> Int? {
        guard object[key] != .null else {
            _ = value(key)
            problem("\(key) cannot be null")
            return nil
        }
        return integer(key, in: range).map(Int.init)
    }
}
