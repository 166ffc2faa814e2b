import OpenPushCore
import OpenPushDelivery
import Postgres

/// One row of `webhooks` as the routes show it: never its secrets.
struct WebhookRecord: Sendable, Equatable {
    var id: String
    var url: String
    var events: [String]
    var description: String?
    var enabled: Bool
    var disabledReason: String?
    var lastSuccessAt: Double?
    var lastFailureAt: Double?
    var lastFailureStatus: Int?
    var createdAt: Double
    var updatedAt: Double

    static let columns: PostgresQuery = """
        id, url, events, description, enabled, disabled_reason,
        extract(epoch FROM last_success_at)::float8 AS last_success_at,
        extract(epoch FROM last_failure_at)::float8 AS last_failure_at, last_failure_status,
        extract(epoch FROM created_at)::float8 AS created_at, extract(epoch FROM updated_at)::float8 AS updated_at
        """

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        url = try row.decode("url")
        events = try row.decode("events")
        description = try row.decode("description")
        enabled = try row.decode("enabled")
        disabledReason = try row.decode("disabled_reason")
        lastSuccessAt = try row.decode("last_success_at")
        lastFailureAt = try row.decode("last_failure_at")
        lastFailureStatus = try row.decode("last_failure_status")
        createdAt = try row.decode("created_at")
        updatedAt = try row.decode("updated_at")
    }

    var json: JSONValue {
        func time(_ value: Double?) -> JSONValue { value.map { .string(Timestamp.iso8601($0)) } ?? .null }
        return [
            "id": .string(id), "url": .string(url), "events": .array(events.map(JSONValue.string)),
            "description": description.map(JSONValue.string) ?? .null, "enabled": .bool(enabled),
            "disabled_reason": disabledReason.map(JSONValue.string) ?? .null,
            "last_success_at": time(lastSuccessAt), "last_failure_at": time(lastFailureAt),
            "last_failure_status": lastFailureStatus.map { .int(Int64($0)) } ?? .null,
            "created_at": time(createdAt), "updated_at": time(updatedAt),
        ]
    }

    /// The view plus `secret`: only the answers of create and rotate_secret.
    func json(secret: String) -> JSONValue {
        var object = json.objectValue ?? [:]
        object["secret"] = .string(secret)
        return .object(object)
    }
}
