import OpenPushCore
import OpenPushDelivery
import Postgres

/// Changing a saved segment (`GET`/`PATCH /apps/{app_id}/segments/{id}`).
/// Every statement names the app, so another app's segment is simply not found.
extension SegmentStore {
    enum Updated: Sendable, Equatable {
        case updated
        case notFound
        case nameTaken
    }

    struct Change: Sendable {
        var name: String?
        var filters: JSONValue?
        var description: String?
    }

    /// Sets the fields `change` names; a name another segment of the app holds is `nameTaken`.
    static func update(id: String, appID: String, _ change: Change, now: Double,
                       in database: PostgresPool) async throws -> Updated {
        do {
            let rows = try await database.query("""
                UPDATE segments SET name = COALESCE(\(change.name)::text, name),
                    filters = COALESCE(\(change.filters?.serialized)::jsonb, filters),
                    description = COALESCE(\(change.description)::text, description),
                    updated_at = to_timestamp(\(now))
                WHERE id = \(id) AND app_id = \(appID)
                RETURNING id
                """)
            return rows.isEmpty ? .notFound : .updated
        } catch let error as PostgresError where error.isUniqueViolation {
            return .nameTaken
        }
    }
}
