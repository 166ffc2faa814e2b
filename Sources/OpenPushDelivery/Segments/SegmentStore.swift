import Foundation
package import OpenPushCore
package import Postgres

/// Saved segments. Every query names the app, so no call can reach another app's segments.
package enum SegmentStore {
    /// Inserts a segment with a fresh lower-case UUID; nil when the app already has one by that name.
    package static func create(appID: String, name: String, filters: JSONValue, now: Double,
                              in database: PostgresPool) async throws -> SegmentRecord? {
        let id = UUID().uuidString.lowercased()
        let rows = try await database.query("""
            INSERT INTO segments (id, app_id, name, filters, created_at)
            VALUES (\(id), \(appID), \(name), \(filters.serialized)::jsonb, to_timestamp(\(now)))
            ON CONFLICT (app_id, name) DO NOTHING
            RETURNING id, app_id, name, filters::text AS filters, extract(epoch FROM created_at)::float8 AS created_at,
                      extract(epoch FROM created_at)::float8 AS updated_at, description
            """)
        return try rows.first.map(SegmentRecord.init(row:))
    }

    /// The app's segments, oldest first, and how many it has in all.
    package static func page(appID: String, limit: Int, offset: Int,
                            in database: PostgresPool) async throws -> (total: Int, segments: [SegmentRecord]) {
        try await database.withConnection { connection in
            let total: Int = try connection.query("SELECT count(*) AS total FROM segments WHERE app_id = \(appID)")[0].decode("total")
            let rows = try connection.query(SegmentRecord.columns + """
                 WHERE app_id = \(appID) ORDER BY created_at, id LIMIT \(limit) OFFSET \(offset)
                """)
            return (total, try rows.map(SegmentRecord.init(row:)))
        }
    }

    /// False when the app has no segment with this id.
    package static func delete(id: String, appID: String, in database: PostgresPool) async throws -> Bool {
        let rows = try await database.query("DELETE FROM segments WHERE id = \(id) AND app_id = \(appID) RETURNING id")
        return !rows.isEmpty
    }

    /// The app's segment with this id, if it has one.
    package static func find(id: String, appID: String, in connection: PostgresConnection) throws -> SegmentRecord? {
        try connection.query(SegmentRecord.columns + " WHERE id = \(id) AND app_id = \(appID)").first.map(SegmentRecord.init(row:))
    }

    /// The app's segments with these names; names it does not have are simply absent.
    package static func find(named names: [String], appID: String, in connection: PostgresConnection) throws -> [SegmentRecord] {
        try connection.query(SegmentRecord.columns + " WHERE app_id = \(appID) AND name = ANY(\(names)::text[])")
            .map(SegmentRecord.init(row:))
    }
}
