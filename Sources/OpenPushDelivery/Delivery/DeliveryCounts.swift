import OpenPushCore
package import Postgres

/// The per-message counts (`counted_*` on `messages`, migration 0033) that
/// `GET /notifications/{id}` reads instead of counting the message's records, and the per-app,
/// per-second, per-push-service rollup (`delivery_stats`, migrations 0035 and 0063) that the
/// stats routes read. Every writer of a record adds to both in the transaction (and statement)
/// that writes it, so a read costs one row whatever the audience, and a record is maintained in
/// no index but its message's.
/// Lock order: the message row, then the rollup row.
package enum DeliveryCounts {
    /// The rollup's bucket for records written now: their `created_at` (its default, this
    /// transaction's now()) to the second.
    static let bucketNow: PostgresQuery = "to_timestamp(floor(extract(epoch FROM now())))"

    /// Shards of an app's per-second rollup row (`shard`, migration 0063): concurrent
    /// completions of one app's jobs in one second take one of these rows each, not one row in
    /// turn. The readers sum them.
    package static let shards: Int16 = 4

    /// A shard for a writer to add to: any, as concurrent writers spread over them.
    static func anyShard() -> Int16 { Int16.random(in: 0..<shards) }

    /// The shard writers other than a job's completion add to (a cancel, a failure, a tap):
    /// rare beside completions, they need no spreading.
    static let quietShard: Int16 = 0

    /// Records' stats tallies by the push service they went to; only services present.
    static func byService(_ records: [DeliveryRecord]) -> [PushService: DeliveryTally] {
        var tallies: [PushService: DeliveryTally] = [:]
        // Most jobs are of one service: one tally, without a dictionary access per record.
        guard let first = records.first?.service else { return tallies }
        if records.allSatisfy({ $0.service == first }) {
            return [first: DeliveryTally(records.lazy.map { (state: $0.state, reason: $0.reason) })]
        }
        for record in records { tallies[record.service, default: DeliveryTally()].add(state: record.state, reason: record.reason) }
        return tallies
    }

    /// A stored `platform`'s push service label (`PushService.rawValue`), in SQL, as
    /// `PushService(platform:)` decides it: `apns` for any other platform, or none (a
    /// subscription gone).
    static func serviceOfPlatform(_ platform: PostgresQuery) -> PostgresQuery {
        """
        (CASE \(platform) WHEN 'android' THEN \(PushService.fcm.rawValue) WHEN 'web' THEN \(PushService.webPush.rawValue)
                          ELSE \(PushService.apns.rawValue) END)
        """
    }

    /// The tail of an `INSERT INTO delivery_stats AS s …`: adds to the bucket's row when it exists.
    static func addToStats() -> PostgresQuery {
        """

        ON CONFLICT (app_id, bucket, service, shard) DO UPDATE SET
            accepted = s.accepted + EXCLUDED.accepted,
            failed = s.failed + EXCLUDED.failed,
            suppressed = s.suppressed + EXCLUDED.suppressed,
            cancelled = s.cancelled + EXCLUDED.cancelled,
            clicked = s.clicked + EXCLUDED.clicked,
            errors_by_reason = openpush_add_counts(s.errors_by_reason, EXCLUDED.errors_by_reason)
        """
    }

    /// A device's first tap on a message (the message row locked already): counted in the
    /// rollup row of its record's bucket (the record's `created_at`), as the stats routes count
    /// a window's records with a tap, whenever the tap came, and of its subscription's push service.
    package static func addFirstTap(appID: String, subscriptionID: String, recordCreatedAt: PostgresQuery,
                                    in connection: PostgresConnection) throws {
        let service = serviceOfPlatform("(SELECT platform FROM subscriptions WHERE id = \(subscriptionID))")
        try connection.query("""
            INSERT INTO delivery_stats AS s (app_id, bucket, service, shard, clicked)
            VALUES (\(appID), date_trunc('second', \(recordCreatedAt)), \(service), \(quietShard), 1)
            """ + addToStats())
    }

    /// A reason → count object as jsonb text; `{}` when empty, which `openpush_add_counts` skips.
    static func json(_ counts: [String: Int64]) -> String {
        JSONValue.object(JSONObject(counts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })).serialized
    }

    /// The tail of a statement whose CTE `inserted` (an `INSERT INTO deliveries … RETURNING
    /// message_id, subscription_id, state, error_reason, finished_at`, its `created_at` left to
    /// its default) appended records: adds them to their messages' counts and to their apps'
    /// rollup rows in the same statement, counted as `DeliveryTally` counts. A record's push
    /// service is its subscription's platform's (`apns` when the subscription is gone). Its
    /// callers (a cancel, a failure) lock the message row first, so the rollup row comes second
    /// here too.
    static func addInserted() -> PostgresQuery {
        let unreachable = DeliveryTally.unreachableReasons
        return """
            , stats_records AS (
                SELECT m.app_id, \(serviceOfPlatform("sub.platform")) AS service, i.state, i.error_reason
                FROM inserted i JOIN messages m ON m.id = i.message_id
                LEFT JOIN subscriptions sub ON sub.id = i.subscription_id
            ), stats AS (
                INSERT INTO delivery_stats AS s (app_id, bucket, service, shard, accepted, failed, suppressed, cancelled,
                                                 errors_by_reason)
                SELECT c.app_id, \(bucketNow), c.service, \(quietShard), c.accepted, c.failed, c.suppressed, c.cancelled,
                       COALESCE(r.reasons, '{}')
                FROM (SELECT app_id, service,
                             count(*) FILTER (WHERE state = 'accepted') AS accepted,
                             count(*) FILTER (WHERE state = 'error') AS failed,
                             count(*) FILTER (WHERE state = 'suppressed') AS suppressed,
                             count(*) FILTER (WHERE state = 'cancelled') AS cancelled
                      FROM stats_records GROUP BY app_id, service) AS c
                LEFT JOIN (SELECT app_id, service, jsonb_object_agg(error_reason, n) AS reasons
                           FROM (SELECT app_id, service, error_reason, count(*) AS n FROM stats_records
                                 WHERE state = 'error' AND error_reason IS NOT NULL GROUP BY app_id, service, error_reason) AS counted
                           GROUP BY app_id, service) AS r USING (app_id, service)
                WHERE c.accepted + c.failed + c.suppressed + c.cancelled > 0
            """ + addToStats() + """

            )
            , figures AS (
                SELECT message_id,
                       count(*) FILTER (WHERE state = 'accepted') AS successful,
                       count(*) FILTER (WHERE state = 'error' AND error_reason = ANY(\(unreachable))) AS failed,
                       count(*) FILTER (WHERE state = 'error' AND NOT (error_reason = ANY(\(unreachable)))) AS errored,
                       count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
                       max(finished_at) AS last_finished
                FROM inserted GROUP BY message_id
            ), reasons AS (
                SELECT message_id, jsonb_object_agg(error_reason, n) AS reasons
                FROM (SELECT message_id, error_reason, count(*) AS n FROM inserted
                      WHERE state = 'error' AND error_reason IS NOT NULL GROUP BY message_id, error_reason) AS counted
                GROUP BY message_id
            ), suppressions AS (
                SELECT message_id, jsonb_object_agg(error_reason, n) AS reasons
                FROM (SELECT message_id, error_reason, count(*) AS n FROM inserted
                      WHERE state = 'suppressed' AND error_reason IS NOT NULL GROUP BY message_id, error_reason) AS counted
                GROUP BY message_id
            )
            UPDATE messages m SET
                counted_successful = m.counted_successful + f.successful,
                counted_failed = m.counted_failed + f.failed,
                counted_errored = m.counted_errored + f.errored,
                counted_cancelled = m.counted_cancelled + f.cancelled,
                counted_last_finished_at = GREATEST(m.counted_last_finished_at, f.last_finished),
                counted_errors_by_reason = openpush_add_counts(m.counted_errors_by_reason, r.reasons),
                counted_suppressed_by_reason = openpush_add_counts(m.counted_suppressed_by_reason, sp.reasons)
            FROM figures f LEFT JOIN reasons r USING (message_id) LEFT JOIN suppressions sp USING (message_id)
            WHERE m.id = f.message_id
            """
    }
}
