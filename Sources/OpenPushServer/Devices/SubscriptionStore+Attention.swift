package import OpenPushCore
import OpenPushDelivery
package import Postgres

extension SubscriptionStore {
    /// Writes the device preferences a registration or a `PATCH` sent (`quiet_hours`,
    /// `muted_threads`), in the caller's transaction; what was not sent stays as it was.
    package static func applyAttention(id: String, appID: String, quietHours: FieldChange<QuietHoursWindow>,
                                      mutedThreads: [String]?, in connection: PostgresConnection) throws {
        guard !quietHours.isKeep || mutedThreads != nil else { return }
        let window = quietHours.newValue
        try connection.query("""
            UPDATE subscriptions
            SET quiet_hours_start = CASE WHEN \(quietHours.isKeep)::boolean THEN quiet_hours_start
                                         ELSE \(window?.start)::smallint END,
                quiet_hours_end = CASE WHEN \(quietHours.isKeep)::boolean THEN quiet_hours_end
                                       ELSE \(window?.end)::smallint END,
                muted_threads = COALESCE(\(mutedThreads)::text[], muted_threads)
            WHERE app_id = \(appID) AND id = \(id)
            """)
    }
}
