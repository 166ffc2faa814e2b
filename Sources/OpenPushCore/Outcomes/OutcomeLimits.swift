/// The bounds of outcome reporting and reading, in one place so the routes, the store, the
/// tests and the docs agree.
package enum OutcomeLimits {
    /// A custom outcome's name: 1 to 64 characters of `OutcomeName.allowedCharacters`.
    package static let maximumNameLength = 64
    /// A reported value (`.sum` adds them up): a whole number, as OneSignal's `value` is.
    package static let valueRange: ClosedRange<Int64> = 0...1_000_000_000
    /// Names one `GET /apps/{app_id}/outcomes` may ask for.
    package static let maximumNamesPerQuery = 20
    /// Distinct custom names one app may record in one hour: further new names that hour are
    /// refused (`429`), names already seen keep counting. Bounds an app's rows per hour.
    package static let namesPerAppHour = 100
    /// Reports one device may send per `reportWindow` seconds.
    package static let reportsPerDevice = 60
    package static let reportWindow = 60.0
    /// Hours of `outcome_hours` kept (OneSignal keeps outcomes about 30 days).
    package static let retentionDays = 31
}
