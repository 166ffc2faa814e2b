public import Postgres

/// One claimed row of `deliveries`.
public struct ClaimedDelivery: Sendable, Equatable {
    public var id: Int64
    public var apnsID: String
    public var messageID: String
    public var appID: String
    public var subscriptionID: String
    public var liveActivityID: String?
    public var tokenKind: String
    public var token: String
    /// Including this claim.
    public var attempts: Int
    public var createdAt: Double
    /// When it was due: where the next claim may start scanning (see `DeliveryQueue.claim`).
    public var nextAttemptAt: Double = 0
}

/// What to write back for one delivery after its attempt.
public struct DeliveryUpdate: Sendable, Equatable {
    public enum State: String, Sendable { case queued, accepted, error }

    public var id: Int64
    public var state: State
    public var reason: String?
    /// For `queued`: when to try again (unix seconds).
    public var nextAttemptAt: Double?
    /// A try that was never made (its app got paused) does not count against the attempts.
    public var refundAttempt: Bool

    public init(id: Int64, state: State, reason: String? = nil, nextAttemptAt: Double? = nil, refundAttempt: Bool = false) {
        self.id = id
        self.state = state
        self.reason = reason
        self.nextAttemptAt = nextAttemptAt
        self.refundAttempt = refundAttempt
    }
}

/// The queue side of `deliveries`: claims with a lease, renewals, and outcomes. A claim is
/// exclusive (`FOR UPDATE SKIP LOCKED`) and expires: a worker that dies leaves its rows to be
/// claimed again once the lease runs out, so delivery is at-least-once and no row is lost.
public enum DeliveryQueue {
    /// Short on purpose: a Live Activity push minutes late is worthless, so rows a dead worker
    /// held must come back quickly. Renewed while a batch is still in flight.
    public static let defaultLeaseSeconds: Double = 30

    /// Claims up to `limit` rows due now: queued, or sent by a worker whose lease ran out. Rows
    /// of apps whose credentials were rejected wait until the credentials are fixed. A claimed
    /// row is `sent` at once: it goes to APNs in this batch (one statement fewer per batch).
    ///
    /// `dueFrom` lets a worker skip the front of the index: rows it has already seen finish
    /// leave dead index entries behind, and a queue drained from the front would otherwise rescan
    /// all of them on every claim (claims took 0.5 s deep into a million-row fan-out). Pass the
    /// `nextAttemptAt` of the last batch; forget it every few seconds so that rows whose lease
    /// ran out, which sit before it, are found again.
    public static func claim(limit: Int, worker: String, now: Double, leaseSeconds: Double = defaultLeaseSeconds,
                             dueFrom: Double? = nil, in connection: PostgresConnection) throws -> [ClaimedDelivery] {
        // The paused apps (a handful at most) as a list rather than a NOT EXISTS: an anti-join there
        // made PostgreSQL sort every due row on each claim (100 ms at 200k rows) instead of
        // reading the first batch off the index (15 ms).
        let paused = try connection.query("SELECT id FROM apps WHERE apns_paused_at IS NOT NULL").map {
            try $0.decode("id", as: String.self)
        }
        let rows = try connection.query("""
            WITH due AS (
                SELECT d.id FROM deliveries d
                WHERE d.finished_at IS NULL AND d.next_attempt_at <= to_timestamp(\(now))
                  AND (d.claimed_until IS NULL OR d.claimed_until < to_timestamp(\(now)))
                  AND d.app_id <> ALL(\(paused)::text[])
                  AND d.next_attempt_at >= to_timestamp(\(dueFrom.map { $0 - 0.001 } ?? 0))
                ORDER BY d.next_attempt_at, d.id
                LIMIT \(limit)
                FOR UPDATE OF d SKIP LOCKED
            )
            UPDATE deliveries d
            SET state = 'sent', sent_at = to_timestamp(\(now)),
                claimed_until = to_timestamp(\(now + leaseSeconds)), claimed_by = \(worker), attempts = d.attempts + 1
            FROM due WHERE d.id = due.id
            RETURNING d.id, d.apns_id::text AS apns_id, d.message_id, d.app_id, d.subscription_id, d.live_activity_id,
                      d.token_kind, d.token, d.attempts, extract(epoch FROM d.created_at)::float8 AS created_at,
                      extract(epoch FROM d.next_attempt_at)::float8 AS next_attempt_at
            """)
        return try rows.map { row in
            ClaimedDelivery(id: try row.decode("id"), apnsID: try row.decode("apns_id"), messageID: try row.decode("message_id"),
                            appID: try row.decode("app_id"), subscriptionID: try row.decode("subscription_id"),
                            liveActivityID: try row.decode("live_activity_id"), tokenKind: try row.decode("token_kind"),
                            token: try row.decode("token"), attempts: try row.decode("attempts"),
                            createdAt: try row.decode("created_at"), nextAttemptAt: try row.decode("next_attempt_at"))
        }.sorted { $0.id < $1.id }
    }

    /// Keeps a slow batch's rows from being claimed by someone else.
    public static func renewLease(_ ids: [Int64], worker: String, now: Double, leaseSeconds: Double = defaultLeaseSeconds,
                                  in connection: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        try connection.query("""
            UPDATE deliveries SET claimed_until = to_timestamp(\(now + leaseSeconds))
            WHERE id = ANY(\(ids)::bigint[]) AND claimed_by = \(worker)
            """)
    }

    /// Writes every outcome of a batch in one statement. Rows another worker has claimed since
    /// (our lease ran out) are left alone.
    public static func apply(_ updates: [DeliveryUpdate], worker: String, now: Double, in connection: PostgresConnection) throws {
        guard !updates.isEmpty else { return }
        try connection.query("""
            UPDATE deliveries AS d SET
                state = v.state,
                error_reason = v.reason,
                attempts = d.attempts - v.refund,
                next_attempt_at = COALESCE(to_timestamp(v.next_at), d.next_attempt_at),
                claimed_until = NULL,
                claimed_by = NULL,
                accepted_at = CASE WHEN v.state = 'accepted' THEN to_timestamp(\(now)) ELSE d.accepted_at END,
                finished_at = CASE WHEN v.state IN ('accepted', 'error') THEN to_timestamp(\(now)) ELSE NULL END
            FROM unnest(\(updates.map(\.id))::bigint[], \(updates.map(\.state.rawValue))::text[],
                        \(updates.map(\.reason))::text[], \(updates.map(\.nextAttemptAt))::float8[],
                        \(updates.map { $0.refundAttempt ? 1 : 0 })::int[]) AS v(id, state, reason, next_at, refund)
            WHERE d.id = v.id AND d.claimed_by = \(worker)
            """)
    }

    /// Rows waiting to be sent, for `/metrics`.
    public static func depth(in database: PostgresPool) async throws -> Int {
        // `finished_at IS NULL` is the claim index's predicate: every scrape of /metrics counts
        // from that index instead of scanning every delivery ever made.
        try await database.query("SELECT count(*)::int AS n FROM deliveries WHERE finished_at IS NULL")[0].decode("n")
    }
}
