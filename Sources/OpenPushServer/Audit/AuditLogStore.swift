package import OpenPushCore
import OpenPushDelivery
package import Postgres

/// The audit log: entries are written by the store that makes the change, on its connection,
/// so a change that rolls back leaves no entry; read newest first by the audit log route.
package enum AuditLogStore {
    /// Appends one entry in the caller's transaction. Its time is kept to the millisecond, as it
    /// is shown, so a `start_time` copied from an entry includes that entry.
    package static func record(_ action: AuditAction, target: String, appID: String?, metadata: JSONObject = [:],
                              by stamp: AuditStamp, now: Double, in connection: PostgresConnection) throws {
        let id = Identifier.make(prefix: "aud", now: now, random: KeyMaterial.identifierEntropy())
        let occurredAt = (now * 1000).rounded() / 1000
        // A schema from before the audit log (a change made by this release before it migrated
        // the database, as the upgrade tests do) has nowhere to write it.
        guard try connection.query("SELECT to_regclass('audit_log') IS NOT NULL AS present")[0].decode("present", as: Bool.self)
        else { return }
        try connection.query("""
            INSERT INTO audit_log (id, occurred_at, action, actor_type, actor_id, app_id, target_type, target_id, request_id,
                                   metadata)
            VALUES (\(id), to_timestamp(\(occurredAt)), \(action.rawValue), \(stamp.actor.type.rawValue), \(stamp.actor.id), \(appID),
                    \(action.targetType.rawValue), \(target), \(stamp.requestID), \(JSONValue.object(metadata).serialized)::jsonb)
            """)
    }

    /// The deployment's organization id (`org_…`), made once by its migration.
    package static func organizationID(in database: PostgresPool) async throws -> String {
        guard let row = try await database.query("SELECT id FROM organization").first else {
            throw InvariantViolation("the organization row is missing")
        }
        return try row.decode("id")
    }

    /// One page, newest first (ties by position), and whether more follow.
    package static func page(_ query: AuditLogQuery, in database: PostgresPool) async throws -> (entries: [AuditLogEntry], hasMore: Bool) {
        var conditions: [PostgresQuery] = ["true"]
        // Microseconds to a timestamptz exactly: a float8 holds every integer below 2^53.
        func instant(_ micros: Int64) -> PostgresQuery { "('epoch'::timestamptz + \(micros)::int8::float8 * interval '1 microsecond')" }
        if let start = query.startMicros { conditions.append("occurred_at >= \(instant(start))") }
        if let end = query.endTime { conditions.append("occurred_at < \(instant(Int64((end * 1_000_000).rounded())))") }
        if let cursor = query.cursor {
            conditions.append("(occurred_at, position) < (\(instant(cursor.occurredMicros)), \(cursor.position))")
        }
        // OneSignal: organization-level entries are always included beside the apps asked for.
        if !query.appIDs.isEmpty { conditions.append("(app_id IS NULL OR app_id = ANY(\(query.appIDs)::text[]))") }
        if !query.actions.isEmpty { conditions.append("action = ANY(\(query.actions.map(\.rawValue))::text[])") }
        if !query.actorIDs.isEmpty { conditions.append("actor_id = ANY(\(query.actorIDs)::text[])") }
        if !query.targetTypes.isEmpty { conditions.append("target_type = ANY(\(query.targetTypes.map(\.rawValue))::text[])") }
        if !query.targetIDs.isEmpty { conditions.append("target_id = ANY(\(query.targetIDs)::text[])") }
        let rows = try await database.query(AuditLogEntry.columns + """
             WHERE \(conditions.joined(separator: " AND "))
            ORDER BY occurred_at DESC, position DESC LIMIT \(query.limit + 1)
            """)
        let entries = try rows.map(AuditLogEntry.init(row:))
        return (Array(entries.prefix(query.limit)), entries.count > query.limit)
    }
}
