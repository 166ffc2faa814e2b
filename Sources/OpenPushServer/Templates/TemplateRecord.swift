import OpenPushCore
import OpenPushDelivery
import Postgres

/// One stored template: its name and its content fields as the client sent them (validated by
/// `TemplateFields` before they were stored).
struct TemplateRecord: Sendable, Equatable {
    var id: String
    var appID: String
    var name: String
    var content: JSONObject
    /// Unix seconds.
    var createdAt: Double
    var updatedAt: Double

    static let columns: PostgresQuery = """
        id, app_id, name, fields::text AS fields, extract(epoch FROM created_at)::float8 AS created_at,
        extract(epoch FROM updated_at)::float8 AS updated_at
        """

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        name = try row.decode("name")
        guard let content = try JSONValue.parse(try row.decode("fields", as: String.self)).objectValue else {
            throw InvariantViolation("template \(id) has fields that are not a JSON object")
        }
        self.content = content
        createdAt = try row.decode("created_at")
        updatedAt = try row.decode("updated_at")
    }
}
