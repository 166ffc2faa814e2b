import OpenPushCore
import Postgres

extension DeliveryContext {
    /// Loads the quiet hours and muted threads of the batch's devices that set any, with each
    /// device's local time of day now and the instant its quiet hours next end, both read by
    /// PostgreSQL from its time zone database (`openpush_device_clock`). Only batches holding an
    /// alert need them: nothing else is affected.
    ///
    /// The device's zone: its `timezone` when that is an IANA name PostgreSQL knows, else its
    /// user's `timezone_id` when known, else its `timezone` as a UTC offset in seconds (within
    /// ±14 hours), else UTC. Unknown names count as absent, so one bad value fails nothing.
    mutating func loadAttention(for deliveries: [ClaimedDelivery], in connection: PostgresConnection) throws {
        // Asked of the job's few messages, not of each of its thousand recipients.
        guard holdsAlert else { return }
        // The subscriptions query already said which devices set any: most set none, and then
        // there is nothing to ask PostgreSQL.
        let subscriptionIDs = Array(Set(deliveries.filter { subscription(for: $0)?.setsAttention == true }.map(\.subscriptionID)))
        guard !subscriptionIDs.isEmpty else { return }
        let appIDs = Array(Set(deliveries.map(\.appID)))
        let offsetPattern = ExpansionSchedule.offsetPattern
        let widest = ExpansionSchedule.maximumOffsetSeconds
        for row in try connection.query("""
            WITH devices AS (
                SELECT s.id, s.app_id, s.quiet_hours_start, s.quiet_hours_end, s.muted_threads,
                       s.timezone AS device_zone, u.timezone_id AS user_zone,
                       CASE WHEN s.timezone ~ \(offsetPattern)::text THEN s.timezone::int END AS device_offset
                FROM subscriptions s
                LEFT JOIN user_aliases a ON s.quiet_hours_start IS NOT NULL AND a.app_id = s.app_id
                     AND a.label = 'external_id' AND a.value = s.external_id
                LEFT JOIN users u ON u.id = a.user_id
                WHERE s.id = ANY(\(subscriptionIDs)::text[]) AND s.app_id = ANY(\(appIDs)::text[])
                  AND (s.quiet_hours_start IS NOT NULL OR cardinality(s.muted_threads) > 0)
            ),
            known AS MATERIALIZED (
                SELECT name FROM pg_timezone_names
                WHERE name IN (SELECT device_zone FROM devices UNION SELECT user_zone FROM devices)
            ),
            placed AS (
                SELECT d.*,
                       -- Only quiet hours need the zone: a device that only mutes threads skips the lookup.
                       CASE WHEN d.quiet_hours_start IS NULL THEN NULL
                            WHEN d.device_offset IS NULL AND d.device_zone IN (SELECT name FROM known) THEN d.device_zone
                            WHEN d.user_zone IN (SELECT name FROM known) THEN d.user_zone END AS zone,
                       CASE WHEN d.device_offset BETWEEN -\(widest)::int AND \(widest)::int THEN d.device_offset
                            ELSE 0 END AS offset_seconds
                FROM devices d
            )
            SELECT p.id, p.app_id, p.quiet_hours_start, p.quiet_hours_end, p.muted_threads, c.local_seconds,
                   extract(epoch FROM c.end_at)::float8 AS end_at
            FROM placed p
            CROSS JOIN LATERAL openpush_device_clock(now(), p.zone, p.offset_seconds, p.quiet_hours_end * 60.0) AS c
            """) {
            let window = SubscriptionRecord.quietHours(start: try row.decode("quiet_hours_start"),
                                                       end: try row.decode("quiet_hours_end"))
            let muted: [String] = try row.decode("muted_threads")
            add(DeviceAttention(quietHours: window, mutedThreads: Set(muted), localSecondsOfDay: try row.decode("local_seconds"),
                                quietHoursEndAt: window == nil ? nil : try row.decode("end_at")),
                appID: try row.decode("app_id"), subscriptionID: try row.decode("id"))
        }
    }
}
