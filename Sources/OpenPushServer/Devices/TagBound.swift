import OpenPushCore
import OpenPushDelivery
import Postgres

/// `TagLimits.maxKeys` where tags are written: the count is read from the row as the write left
/// it, in the write's transaction, with the row locked beforehand (`… FOR UPDATE`), so two
/// concurrent requests cannot each fit under the bound alone and together go over it.
enum TagBound {
    /// A row's number of tag keys, as `tag_count` (in a select list or `RETURNING`).
    static let count: PostgresQuery = "(SELECT count(*) FROM jsonb_object_keys(tags))::int AS tag_count"

    /// The number of tag keys of the one row `row` (`"<table> WHERE …"`) selects, 0 when there
    /// is none yet, the row locked until the transaction ends.
    static func lockedCount(_ row: PostgresQuery, in connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT \(count) FROM \(row) FOR UPDATE").first?.decode("tag_count") ?? 0
    }

    /// Refuses (`400`, and so the transaction's rollback: nothing is stored) a change that took
    /// the tags of a row from `before` keys to `after`, over the bound.
    static func check(before: Int, after: Int, holder: TagLimits.Holder) throws(APIError) {
        if let problem = TagLimits.countProblem(before: before, after: after, holder: holder) {
            throw APIError.badRequest(problem)
        }
    }
}
