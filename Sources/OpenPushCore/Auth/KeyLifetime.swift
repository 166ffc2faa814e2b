/// How long a REST key may be minted for (`expires_in_seconds` of `POST /apps/{app_id}/auth/tokens`).
/// A key with no lifetime never expires; the console (`web/console/api.js`) mints its own for 12
/// hours, so a key left behind by a closed tab stops working the same day.
package enum KeyLifetime {
    /// One minute to 90 days.
    package static let allowedSeconds: ClosedRange<Int64> = 60...(90 * 86_400)
}
