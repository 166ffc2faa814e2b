import OpenPushCore
import Postgres

/// Reads the feed: only visible events (`StoredEvent.visible`), in `(xid, seq, index)` order, so
/// a cursor handed out never passes an event that commits later; a cursor may stand inside a
/// job's compact row of delivery events, and the next page resumes inside it.
enum EventFeed {
    static func page(appID: String, request: EventFeedRequest, now: Double,
                     in database: PostgresPool) async throws -> [StoredEvent] {
        let since = now - Double(EventOutbox.retentionDays) * 86_400
        let types: PostgresQuery = request.types.map { "AND type = ANY(\($0)::text[])" } ?? ""
        let feed: PostgresQuery = """
            app_id = \(appID) AND webhook_id IS NULL AND created_at > to_timestamp(\(since)) \(types) AND \(StoredEvent.visible)
            """
        let rows = try await database.query(StoredEvent.page(where: feed, after: request.after, limit: request.limit))
        return try StoredEvent.expand(rows, after: request.after, limit: request.limit)
    }

    /// Deletes events past the feed's days, `batchSize` at a time (a long delete would hold
    /// back the dispatcher); returns how many went.
    @discardableResult
    static func prune(now: Double, batchSize: Int = 10_000, in database: PostgresPool) async throws -> Int {
        let cutoff = now - Double(EventOutbox.retentionDays) * 86_400
        var total = 0
        while true {
            let removed = try await database.query("""
                DELETE FROM events WHERE seq IN (
                    SELECT seq FROM events WHERE created_at <= to_timestamp(\(cutoff)) ORDER BY created_at LIMIT \(batchSize))
                """).affectedRows
            total += removed
            if removed < batchSize { return total }
        }
    }
}
