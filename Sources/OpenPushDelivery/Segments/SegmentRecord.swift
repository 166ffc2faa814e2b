package import OpenPushCore
import Postgres

/// One saved segment: its filters as the client sent them (validated before they were stored).
package struct SegmentRecord: Sendable, Equatable {
    package var id: String
    package var appID: String
    package var name: String
    package var filters: JSONValue
    /// Unix seconds.
    package var createdAt: Double
    /// Unix seconds: the last `PATCH`, else `createdAt`.
    package var updatedAt: Double
    /// OneSignal's optional description (set by a `PATCH`).
    package var description: String?

    static let columns: PostgresQuery = """
        SELECT id, app_id, name, filters::text AS filters, extract(epoch FROM created_at)::float8 AS created_at,
               extract(epoch FROM COALESCE(updated_at, created_at))::float8 AS updated_at, description
        FROM segments
        """

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        name = try row.decode("name")
        filters = try JSONValue.parse(try row.decode("filters", as: String.self))
        createdAt = try row.decode("created_at")
        updatedAt = try row.decode("updated_at")
        description = try row.decode("description")
    }
}
