import OpenPushCore
package import Postgres

/// The interval rules' I/O: Live Activity update coalescing and the widget push throttle. For a
/// job of updates or widget reloads, it locks the slot of each device it goes to (in id order),
/// reads what PostgreSQL knows — the last slot, the newest push waiting for that device in any
/// job, an `end` queued — runs the pure decision with PostgreSQL's clock, and records the slots
/// it claims, all in one transaction. Nothing is kept in memory, so any number of workers and
/// processes agree.
package enum PushIntervals {
    /// Whether a job's recipients go through an interval rule at all (else no round trip).
    static func applies(to job: DeliveryJob, deliveries: [ClaimedDelivery], context: DeliveryContext) -> Bool {
        guard let first = deliveries.first, let message = context.message(for: first), !message.cancelled else { return false }
        switch job.tokenKind {
        case .update: return message.send?.event == .update && message.pushTimestamp != nil
        case .widget: return true
        case .device, .pushToStart, .channel, .voip, .location, .pushToTalk, .complication, .fileProvider: return false
        }
    }

    /// What the planner records instead of a push, by delivery id; recipients not named go as
    /// planned. Cancelled or stopped recipients are left to the planner.
    static func decide(_ job: DeliveryJob, deliveries: [ClaimedDelivery], context: DeliveryContext,
                       in connection: PostgresConnection) throws -> [Int64: DeliveryPlanner.Refusal] {
        let candidates = deliveries.filter { DeliveryPlanner.stopped($0, context: context) == nil }
        guard !candidates.isEmpty else { return [:] }
        let settings = try connection.query("""
            SELECT live_activity_update_interval_seconds AS coalescing, widget_push_interval_seconds AS widgets,
                   extract(epoch FROM now())::float8 AS now
            FROM apps WHERE id = \(job.appID)
            """)
        guard let row = settings.first else { return [:] }
        let now: Double = try row.decode("now")
        switch job.tokenKind {
        case .update:
            let interval: Int = try row.decode("coalescing")
            guard interval > 0, let timestamp = context.message(for: candidates[0])?.pushTimestamp else { return [:] }
            return try coalesce(job, candidates, rank: PushRank(order: Int64(timestamp), messageID: job.messageID),
                                interval: interval, now: now, in: connection)
        case .widget:
            let interval: Int = try row.decode("widgets")
            guard interval > 0 else { return [:] }
            return try throttle(job, candidates, interval: interval, now: now, in: connection)
        case .device, .pushToStart, .channel, .voip, .location, .pushToTalk, .complication, .fileProvider:
            return [:]
        }
    }

    // MARK: Live Activity updates

    private static func coalesce(_ job: DeliveryJob, _ deliveries: [ClaimedDelivery], rank: PushRank, interval: Int, now: Double,
                                 in connection: PostgresConnection) throws -> [Int64: DeliveryPlanner.Refusal] {
        let rows = Array(Set(deliveries.compactMap(\.liveActivityID))).sorted()
        guard !rows.isEmpty else { return [:] }
        var activities = try lockedActivities(appID: job.appID, rows: rows, in: connection)
        // Every update waiting, whenever it is due: one deferred to the interval's end, or one
        // waiting for a retry, is newer state all the same.
        for pending in try connection.query("""
            SELECT DISTINCT ON (r.live_activity_id) r.live_activity_id, m.id, m.push_timestamp
            FROM delivery_jobs j JOIN messages m ON m.id = j.message_id AND m.app_id = j.app_id,
                 unnest(j.live_activity_ids) AS r(live_activity_id)
            WHERE j.app_id = \(job.appID) AND j.token_kind = 'update'
              AND j.live_activity_ids && \(rows)::text[] AND r.live_activity_id = ANY(\(rows)::text[])
              AND m.event = 'update' AND m.cancelled_at IS NULL AND m.push_timestamp IS NOT NULL
            ORDER BY r.live_activity_id, m.push_timestamp DESC, m.id DESC
            """) {
            let id: String = try pending.decode("live_activity_id")
            activities[id, default: .init()].newestPending = PushRank(order: try pending.decode("push_timestamp"),
                                                                      messageID: try pending.decode("id"))
        }
        var refusals: [Int64: DeliveryPlanner.Refusal] = [:]
        var claims: [(row: String, slot: PushSlot)] = []
        for delivery in deliveries {
            guard let row = delivery.liveActivityID else { continue }
            let decision = LiveActivityCoalescing.decide(update: rank, attempts: delivery.attempts, intervalSeconds: interval,
                                                         activity: activities[row] ?? .init(), now: now)
            if let claim = decision.claim {
                activities[row, default: .init()].slot = claim
                claims.append((row, claim))
            }
            if let refusal = LiveActivityCoalescing.refusal(decision) { refusals[delivery.id] = refusal }
        }
        if !claims.isEmpty {
            try connection.query("""
                UPDATE live_activity_update_slots s
                SET claimed_at = now(), holder_message = c.message, holder_timestamp = c.timestamp
                FROM unnest(\(claims.map(\.row))::text[], \(claims.map(\.slot.holder.messageID))::text[],
                            \(claims.map(\.slot.holder.order))::int8[]) AS c(row_id, message, timestamp)
                WHERE s.app_id = \(job.appID) AND s.live_activity_id = c.row_id
                """)
            // A slot claimed for a newer update that waits (deferred): it goes now.
            let others = claims.filter { $0.slot.holder.messageID != job.messageID }
            if !others.isEmpty {
                try connection.query("""
                    UPDATE delivery_jobs SET due_at = now()
                    WHERE app_id = \(job.appID) AND token_kind = 'update' AND message_id = ANY(\(others.map(\.slot.holder.messageID))::text[])
                      AND due_at > now() AND (leased_until IS NULL OR leased_until <= now())
                      AND live_activity_ids && \(others.map(\.row))::text[]
                    """)
            }
        }
        return refusals
    }

    /// The activities' slot rows, created when missing and locked in id order (every worker
    /// locks in that order, so two never wait on each other in a cycle).
    private static func lockedActivities(appID: String, rows: [String],
                                         in connection: PostgresConnection) throws -> [String: LiveActivityCoalescing.Activity] {
        try connection.query("""
            INSERT INTO live_activity_update_slots (live_activity_id, app_id)
            SELECT la.id, la.app_id FROM live_activities la
            WHERE la.app_id = \(appID) AND la.id = ANY(\(rows)::text[]) ORDER BY la.id
            ON CONFLICT (live_activity_id) DO NOTHING
            """)
        var activities: [String: LiveActivityCoalescing.Activity] = [:]
        for row in try connection.query("""
            SELECT live_activity_id, extract(epoch FROM claimed_at)::float8 AS claimed_at, holder_message, holder_timestamp,
                   end_message, end_timestamp
            FROM live_activity_update_slots
            WHERE app_id = \(appID) AND live_activity_id = ANY(\(rows)::text[])
            ORDER BY live_activity_id FOR UPDATE
            """) {
            var activity = LiveActivityCoalescing.Activity()
            activity.slot = try slot(row, order: "holder_timestamp")
            if let message: String = try row.decode("end_message"), let timestamp: Int64 = try row.decode("end_timestamp") {
                activity.end = PushRank(order: timestamp, messageID: message)
            }
            activities[try row.decode("live_activity_id")] = activity
        }
        return activities
    }

    /// Called by the send route when an `end` is queued: it is never held, and every update still
    /// waiting for the rows it goes to is dropped (`coalesced`, carried by the end) — made due now
    /// so that happens at once rather than when their interval ends.
    package static func endQueued(messageID: String, appID: String, timestamp: Int, in connection: PostgresConnection) throws {
        try connection.query("""
            WITH rows AS (
                SELECT DISTINCT r.id FROM delivery_jobs j, unnest(j.live_activity_ids) AS r(id)
                WHERE j.message_id = \(messageID) AND r.id IS NOT NULL
            )
            INSERT INTO live_activity_update_slots (live_activity_id, app_id, end_message, end_timestamp)
            SELECT la.id, la.app_id, \(messageID), \(Int64(timestamp)) FROM live_activities la
            WHERE la.app_id = \(appID) AND la.id IN (SELECT id FROM rows) ORDER BY la.id
            ON CONFLICT (live_activity_id) DO UPDATE
            SET end_message = EXCLUDED.end_message, end_timestamp = EXCLUDED.end_timestamp
            WHERE live_activity_update_slots.end_timestamp IS NULL
               OR live_activity_update_slots.end_timestamp < EXCLUDED.end_timestamp
            """)
        try connection.query("""
            UPDATE delivery_jobs SET due_at = now()
            WHERE app_id = \(appID) AND token_kind = 'update' AND message_id <> \(messageID) AND due_at > now()
              AND EXISTS (SELECT 1 FROM apps WHERE id = \(appID) AND live_activity_update_interval_seconds > 0)
              AND (leased_until IS NULL OR leased_until <= now())
              AND live_activity_ids && ARRAY(SELECT live_activity_id FROM live_activity_update_slots
                                             WHERE app_id = \(appID) AND end_message = \(messageID))
            """)
    }

    // MARK: widget reloads

    private static func throttle(_ job: DeliveryJob, _ deliveries: [ClaimedDelivery], interval: Int, now: Double,
                                 in connection: PostgresConnection) throws -> [Int64: DeliveryPlanner.Refusal] {
        let devices = Array(Set(deliveries.map(\.subscriptionID))).sorted()
        guard let own = try connection.query("""
            SELECT \(widgetOrder("m")) AS ord FROM messages m WHERE m.id = \(job.messageID) AND m.app_id = \(job.appID)
            """).first else { return [:] }
        let rank = PushRank(order: try own.decode("ord"), messageID: job.messageID)
        try connection.query("""
            INSERT INTO widget_push_slots (subscription_id, app_id)
            SELECT s.id, s.app_id FROM subscriptions s WHERE s.app_id = \(job.appID) AND s.id = ANY(\(devices)::text[]) ORDER BY s.id
            ON CONFLICT (subscription_id) DO NOTHING
            """)
        var slots: [String: PushSlot] = [:]
        for row in try connection.query("""
            SELECT subscription_id, extract(epoch FROM claimed_at)::float8 AS claimed_at, holder_message, holder_order
            FROM widget_push_slots WHERE app_id = \(job.appID) AND subscription_id = ANY(\(devices)::text[])
            ORDER BY subscription_id FOR UPDATE
            """) {
            slots[try row.decode("subscription_id")] = try slot(row, order: "holder_order")
        }
        var pending: [String: PushRank] = [:]
        for row in try connection.query("""
            SELECT DISTINCT ON (r.subscription_id) r.subscription_id, m.id, \(widgetOrder("m")) AS ord
            FROM delivery_jobs j JOIN messages m ON m.id = j.message_id AND m.app_id = j.app_id,
                 unnest(j.subscription_ids) AS r(subscription_id)
            WHERE j.app_id = \(job.appID) AND j.token_kind = 'widget' AND j.due_at <= now()
              AND j.subscription_ids && \(devices)::text[] AND r.subscription_id = ANY(\(devices)::text[])
              AND m.cancelled_at IS NULL
            ORDER BY r.subscription_id, ord DESC, m.id DESC
            """) {
            pending[try row.decode("subscription_id")] = PushRank(order: try row.decode("ord"), messageID: try row.decode("id"))
        }
        var refusals: [Int64: DeliveryPlanner.Refusal] = [:]
        var claims: [(device: String, slot: PushSlot)] = []
        for delivery in deliveries {
            let device = delivery.subscriptionID
            let decision = WidgetThrottle.decide(reload: rank, intervalSeconds: interval, slot: slots[device],
                                                 newestPending: pending[device], now: now)
            if let claim = decision.claim {
                slots[device] = claim
                claims.append((device, claim))
            }
            if let refusal = WidgetThrottle.refusal(decision) { refusals[delivery.id] = refusal }
        }
        if !claims.isEmpty {
            try connection.query("""
                UPDATE widget_push_slots s
                SET claimed_at = now(), holder_message = c.message, holder_order = c.ord
                FROM unnest(\(claims.map(\.device))::text[], \(claims.map(\.slot.holder.messageID))::text[],
                            \(claims.map(\.slot.holder.order))::int8[]) AS c(device, message, ord)
                WHERE s.app_id = \(job.appID) AND s.subscription_id = c.device
                """)
        }
        return refusals
    }

    /// A widget push's rank: when its message became due (its `send_after`, else its creation),
    /// in microseconds.
    private static func widgetOrder(_ alias: String) -> PostgresQuery {
        "(extract(epoch FROM COALESCE(\(identifier: alias).send_after, \(identifier: alias).created_at)) * 1000000)::int8"
    }

    private static func slot(_ row: PostgresRow, order column: String) throws -> PushSlot? {
        guard let claimedAt: Double = try row.decode("claimed_at"), let message: String = try row.decode("holder_message"),
              let order: Int64 = try row.decode(column) else { return nil }
        return PushSlot(claimedAt: claimedAt, holder: PushRank(order: order, messageID: message))
    }
}

extension PushIntervalDecision {
    /// The slot this decision claims, to record.
    var claim: PushSlot? {
        switch self {
        case .send(let claim), .folded(_, let claim): claim
        case .wait, .superseded: nil
        }
    }
}
