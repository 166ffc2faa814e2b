import OpenPushCore
import Postgres

/// The claims behind durable dedupe (`AlertDedupe`), in `alert_dedupe_claims`: one row per
/// (app, dedupe key, device), keyed by app, so one app's keys never touch another's.
enum AlertDedupeStore {
    /// Claims each (app, key, device) for its message at `now`, in one statement; returns the
    /// keys this message holds afterwards. A row is taken over when it is the same message's
    /// (a retry, or a re-run after a worker died) or older than the window; otherwise the device
    /// was told already and the key is not returned. A concurrent claim of the same row waits for
    /// the other transaction and then sees its row, so at most one of them wins. Rows go in key
    /// order, so two batches claiming overlapping devices cannot deadlock.
    static func claim(_ claims: [AlertDedupe.Claim], now: Double, in connection: PostgresConnection) throws -> Set<AlertDedupe.Key> {
        var won: Set<AlertDedupe.Key> = []
        let groups = Dictionary(grouping: Set(claims)) { WindowGroup(appID: $0.appID, dedupeKey: $0.dedupeKey, messageID: $0.messageID,
                                                                      windowStart: $0.windowStart) }
        for (group, members) in groups {
            let subscriptionIDs = Array(Set(members.map(\.subscriptionID))).sorted()
            for row in try connection.query("""
                INSERT INTO alert_dedupe_claims AS c (app_id, dedupe_key, subscription_id, message_id, claimed_at)
                SELECT \(group.appID), \(group.dedupeKey), s.id, \(group.messageID), to_timestamp(\(now))
                FROM unnest(\(subscriptionIDs)::text[]) AS s(id) ORDER BY s.id
                ON CONFLICT (app_id, dedupe_key, subscription_id) DO UPDATE
                SET message_id = EXCLUDED.message_id,
                    claimed_at = CASE WHEN c.message_id = EXCLUDED.message_id THEN c.claimed_at ELSE EXCLUDED.claimed_at END
                WHERE c.message_id = EXCLUDED.message_id OR c.claimed_at < to_timestamp(\(group.windowStart))
                RETURNING subscription_id
                """) {
                won.insert(AlertDedupe.Key(appID: group.appID, dedupeKey: group.dedupeKey, subscriptionID: try row.decode("subscription_id")))
            }
        }
        return won
    }

    /// Gives back the claims of pushes that ended in `error` — only while their message still
    /// holds them.
    static func release(_ claims: [AlertDedupe.Claim], in connection: PostgresConnection) throws {
        guard !claims.isEmpty else { return }
        try connection.query("""
            DELETE FROM alert_dedupe_claims c
            USING unnest(\(claims.map(\.appID))::text[], \(claims.map(\.dedupeKey))::text[],
                         \(claims.map(\.subscriptionID))::text[], \(claims.map(\.messageID))::text[])
                  AS r(app_id, dedupe_key, subscription_id, message_id)
            WHERE c.app_id = r.app_id AND c.dedupe_key = r.dedupe_key AND c.subscription_id = r.subscription_id
              AND c.message_id = r.message_id
            """)
    }

    /// Deletes the claims older than their app's window (`AlertDedupe.pruneBefore`): they no
    /// longer dedupe anything. Returns how many.
    static func prune(now: Double, in database: PostgresPool) async throws -> Int {
        var removed = 0
        let windows = try await database.query("SELECT DISTINCT dedupe_window_days FROM apps")
        for row in windows {
            let days: Int = try row.decode("dedupe_window_days")
            removed += try await database.query("""
                DELETE FROM alert_dedupe_claims c USING apps a
                WHERE a.id = c.app_id AND a.dedupe_window_days = \(days)
                  AND c.claimed_at < to_timestamp(\(AlertDedupe.pruneBefore(now: now, days: days)))
                """).affectedRows
        }
        return removed
    }

    private struct WindowGroup: Hashable {
        var appID: String
        var dedupeKey: String
        var messageID: String
        var windowStart: Double
    }
}
