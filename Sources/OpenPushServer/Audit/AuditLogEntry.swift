package import OpenPushCore
import OpenPushDelivery
package import Postgres

/// One stored audit log entry.
package struct AuditLogEntry: Sendable, Equatable {
    package var position: Int64
    package var id: String
    /// Microseconds since 1970, exactly as stored (the cursor compares them).
    package var occurredMicros: Int64
    package var action: String
    package var actorType: String
    package var actorID: String
    package var appID: String?
    package var targetType: String
    package var targetID: String
    package var requestID: String?
    package var metadata: JSONObject

    package static let columns: PostgresQuery = """
        SELECT position, id, (extract(epoch FROM occurred_at) * 1000000)::int8 AS occurred_us, action, actor_type,
               actor_id, app_id, target_type, target_id, request_id, metadata::text AS metadata
        FROM audit_log
        """

    package init(row: PostgresRow) throws {
        position = try row.decode("position")
        id = try row.decode("id")
        occurredMicros = try row.decode("occurred_us")
        action = try row.decode("action")
        actorType = try row.decode("actor_type")
        actorID = try row.decode("actor_id")
        appID = try row.decode("app_id")
        targetType = try row.decode("target_type")
        targetID = try row.decode("target_id")
        requestID = try row.decode("request_id")
        guard let metadata = try JSONValue.parse(try row.decode("metadata", as: String.self)).objectValue else {
            throw InvariantViolation("audit log entry \(id) has metadata that is not a JSON object")
        }
        self.metadata = metadata
    }

    /// OneSignal's `AuditLogEvent`, with no `null` (its client refuses one): a field OpenPush has
    /// no value for is left out. The request id is in `context.metadata` and, for readers of
    /// OpenPush's own API, at the top level too.
    package func json(organizationID: String) -> JSONValue {
        var object: JSONObject = [
            "id": .string(id),
            "version": 1,
            "organization_id": .string(organizationID),
            "action": .string(action),
            "occurred_at": .string(Timestamp.iso8601(Double(occurredMicros) / 1_000_000)),
            "actor": ["id": .string(actorID), "type": .string(actorType)],
            "targets": [["id": .string(targetID), "type": .string(targetType)]],
            "metadata": .object(metadata),
        ]
        if let appID { object["app_id"] = .string(appID) }
        var context: JSONObject = [:]
        if let requestID {
            object["request_id"] = .string(requestID)
            context["metadata"] = ["request_id": .string(requestID)]
        }
        object["context"] = .object(context)
        return .object(object)
    }
}
