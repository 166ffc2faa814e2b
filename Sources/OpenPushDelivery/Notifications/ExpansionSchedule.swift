import OpenPushCore
import Postgres

/// When the jobs of one notification expansion page come due (`NotificationSchedule`): now;
/// per device, at a local time of day or at its last session's time of day, within the 24 hours
/// after the message's `send_after`; or, throttled, in slots reserved in `message_throttles`.
/// Recipients due at one instant share jobs; nothing else about a job changes, so workers need
/// to know nothing of schedules: they send what is due.
struct ExpansionSchedule {
    enum Timing {
        case now
        case localTime(secondsAfterMidnight: Int)
        case lastActive
        case throttled(ThrottlePace)
    }

    let timing: Timing

    /// A subscription's `timezone` that is a UTC offset in seconds, as OneSignal's SDKs send it
    /// (`-28800`); anything else there is tried as an IANA name.
    static let offsetPattern = "^[+-]?[0-9]{1,5}$"
    /// The widest UTC offsets in use (−12:00 to +14:00), with room to spare.
    static let maximumOffsetSeconds = 14 * 3600

    /// For a throttled message, fixes its pace on its first page, from the size of its whole
    /// audience (`audience`, a query yielding one row per recipient), and reads it on later ones.
    static func prepare(_ schedule: NotificationSchedule, messageID: String, audience: PostgresQuery,
                        in connection: PostgresConnection) throws -> ExpansionSchedule {
        if let rate = schedule.throttleRatePerMinute {
            return ExpansionSchedule(timing: .throttled(try pace(rate: rate, messageID: messageID, audience: audience,
                                                                  in: connection)))
        }
        switch schedule.delay {
        case nil: return ExpansionSchedule(timing: .now)
        case .localTime(let seconds)?: return ExpansionSchedule(timing: .localTime(secondsAfterMidnight: seconds))
        case .lastActive?: return ExpansionSchedule(timing: .lastActive)
        }
    }

    private static func pace(rate: Int, messageID: String, audience: PostgresQuery,
                             in connection: PostgresConnection) throws -> ThrottlePace {
        if let stored = try connection.query("""
            SELECT slot_size, slot_seconds FROM message_throttles WHERE message_id = \(messageID)
            """).first {
            return ThrottlePace(recipientsPerSlot: try stored.decode("slot_size"), slotSeconds: try stored.decode("slot_seconds"))
        }
        let total: Int = try connection.query("SELECT count(*)::int AS n FROM (\(audience)) AS a")[0].decode("n")
        let pace = ThrottlePace(requestedRatePerMinute: rate, audience: total)
        try connection.query("""
            INSERT INTO message_throttles (message_id, slot_size, slot_seconds, next_at)
            VALUES (\(messageID), \(pace.recipientsPerSlot), \(pace.slotSeconds), now())
            """)
        return pace
    }

    /// The CTEs that follow `source` (`subscription_id`, `token`, `live_activity_id`, `badge`,
    /// `ord`, in send order) in an expansion's `WITH`, ending with `jobs`, which inserts the
    /// page's jobs and returns each one's size as `n`.
    func jobs(from source: String, messageID: String, appID: String, lane: DeliveryLane, tokenKind: TokenKind,
              jobSize: Int) -> PostgresQuery {
        let timed: PostgresQuery
        switch timing {
        case .now:
            let insert = DeliveryQueue.jobsInsert(from: source, messageID: messageID, appID: appID, lane: lane,
                                                  tokenKind: tokenKind, jobSize: jobSize)
            return "jobs AS (\(insert))"
        case .localTime(let seconds):
            timed = Self.localTimes(from: source, messageID: messageID, secondsAfterMidnight: seconds)
        case .lastActive:
            timed = Self.lastActiveTimes(from: source, messageID: messageID)
        case .throttled(let pace):
            timed = Self.slots(from: source, messageID: messageID, pace: pace)
        }
        let size = if case .throttled(let pace) = timing { min(jobSize, pace.recipientsPerSlot) } else { jobSize }
        return """
            \(timed),
            jobs AS (
                INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, due_at, created_at, subscription_ids, tokens,
                                           live_activity_ids, badges)
                SELECT \(messageID), \(appID), \(lane.rawValue), \(tokenKind.rawValue), s.due, GREATEST(s.due, now()),
                       \(DeliveryQueue.aggregatedRecipients(tokenKind))
                FROM (SELECT d.*, (d.due_ord - 1) / \(size)::int AS job
                      FROM (SELECT t.*, row_number() OVER (PARTITION BY t.due ORDER BY t.ord) AS due_ord FROM timed t) AS d
                      ORDER BY d.due, job, d.due_ord) AS s
                GROUP BY s.due, s.job
                RETURNING cardinality(subscription_ids) AS n
            )
            """
    }

    /// `timed`: each recipient due at the local time of day in its device's zone — the
    /// subscription's `timezone` (an offset in seconds, or an IANA name), else its user's
    /// `timezone_id`, else UTC. Names PostgreSQL does not know count as absent, so one bad value
    /// cannot fail the page. Due times are computed once per zone, not per device.
    private static func localTimes(from source: String, messageID: String, secondsAfterMidnight seconds: Int) -> PostgresQuery {
        """
        zoned AS (
            SELECT r.*, s.timezone AS device_zone, u.timezone_id AS user_zone,
                   CASE WHEN s.timezone ~ \(offsetPattern)::text THEN s.timezone::int END AS device_offset
            FROM \(identifier: source) r
            JOIN subscriptions s ON s.id = r.subscription_id
            LEFT JOIN user_aliases a ON a.app_id = s.app_id AND a.label = 'external_id' AND a.value = s.external_id
            LEFT JOIN users u ON u.id = a.user_id
        ),
        known AS MATERIALIZED (
            SELECT name FROM pg_timezone_names
            WHERE name IN (SELECT device_zone FROM zoned UNION SELECT user_zone FROM zoned)
        ),
        placed AS (
            SELECT z.*,
                   CASE WHEN z.device_offset BETWEEN -\(maximumOffsetSeconds)::int AND \(maximumOffsetSeconds)::int THEN NULL
                        WHEN z.device_zone IN (SELECT name FROM known) THEN z.device_zone
                        WHEN z.user_zone IN (SELECT name FROM known) THEN z.user_zone END AS zone,
                   CASE WHEN z.device_offset BETWEEN -\(maximumOffsetSeconds)::int AND \(maximumOffsetSeconds)::int
                        THEN z.device_offset ELSE 0 END AS offset_seconds
            FROM zoned z
        ),
        zone_times AS (
            SELECT p.zone, p.offset_seconds,
                   CASE WHEN p.zone IS NULL THEN openpush_next_offset_time(m.send_after, \(Double(seconds))::float8, p.offset_seconds)
                        ELSE openpush_next_local_time(m.send_after, \(Double(seconds))::float8, p.zone) END AS due
            FROM (SELECT DISTINCT zone, offset_seconds FROM placed) AS p, messages m
            WHERE m.id = \(messageID)
        ),
        timed AS (
            SELECT p.subscription_id, p.token, p.live_activity_id, p.badge, p.ord, zt.due
            FROM placed p JOIN zone_times zt ON zt.zone IS NOT DISTINCT FROM p.zone AND zt.offset_seconds = p.offset_seconds
        )
        """
    }

    /// `timed`: each recipient due at the (UTC) time of day of its device's last session, the
    /// wait after `send_after` rounded up to whole minutes so that one page makes at most one
    /// job per minute of the day; no session: due at once.
    private static func lastActiveTimes(from source: String, messageID: String) -> PostgresQuery {
        """
        timed AS (
            SELECT r.subscription_id, r.token, r.live_activity_id, r.badge, r.ord,
                   COALESCE(m.send_after + make_interval(secs => ceil(extract(epoch FROM
                       openpush_next_offset_time(m.send_after, extract(epoch FROM s.last_session_at)::float8, 0) - m.send_after
                   )::float8 / 60) * 60), m.send_after) AS due
            FROM \(identifier: source) r JOIN subscriptions s ON s.id = r.subscription_id, messages m
            WHERE m.id = \(messageID)
        )
        """
    }

    /// `timed`: the page's recipients in consecutive slots of the message's pace, from its next
    /// free slot (or now, when the schedule fell behind), reserved in `message_throttles`.
    private static func slots(from source: String, messageID: String, pace: ThrottlePace) -> PostgresQuery {
        """
        slot AS (
            SELECT openpush_throttle_reserve(\(messageID), now(),
                       (((SELECT count(*) FROM \(identifier: source))::int + \(pace.recipientsPerSlot)::int - 1)
                        / \(pace.recipientsPerSlot)::int)::int) AS first
        ),
        timed AS (
            SELECT r.subscription_id, r.token, r.live_activity_id, r.badge, r.ord,
                   slot.first + make_interval(secs => ((r.ord - 1) / \(pace.recipientsPerSlot)::int) * \(pace.slotSeconds)::float8) AS due
            FROM \(identifier: source) r, slot
        )
        """
    }
}
