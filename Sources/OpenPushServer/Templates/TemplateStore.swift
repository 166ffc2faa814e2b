import OpenPushCore
import OpenPushDelivery
import Postgres

/// Stored templates. Every query names the app, so no call can reach another app's templates.
enum TemplateStore {
    static func create(appID: String, fields: TemplateFields, now: Double, in database: PostgresPool) async throws -> TemplateRecord {
        let id = Identifier.make(prefix: "tpl", now: now, random: KeyMaterial.identifierEntropy())
        let rows = try await database.query("""
            INSERT INTO templates (id, app_id, name, fields, created_at, updated_at)
            VALUES (\(id), \(appID), \(fields.name ?? ""), \(JSONValue.object(fields.content).serialized)::jsonb,
                    to_timestamp(\(now)), to_timestamp(\(now)))
            RETURNING \(TemplateRecord.columns)
            """)
        return try TemplateRecord(row: rows[0])
    }

    /// The app's templates, oldest first, and how many it has in all.
    static func page(appID: String, page: PageRequest, in database: PostgresPool) async throws -> (total: Int, templates: [TemplateRecord]) {
        try await database.withConnection { connection in
            let total: Int = try connection.query("SELECT count(*)::int AS n FROM templates WHERE app_id = \(appID)")[0].decode("n")
            let rows = try connection.query("""
                SELECT \(TemplateRecord.columns) FROM templates WHERE app_id = \(appID)
                ORDER BY created_at, id LIMIT \(page.limit) OFFSET \(page.offset)
                """)
            return (total, try rows.map(TemplateRecord.init(row:)))
        }
    }

    static func find(id: String, appID: String, in connection: PostgresConnection) throws -> TemplateRecord? {
        try connection.query("SELECT \(TemplateRecord.columns) FROM templates WHERE id = \(id) AND app_id = \(appID)")
            .first.map(TemplateRecord.init(row:))
    }

    static func find(id: String, appID: String, in database: PostgresPool) async throws -> TemplateRecord? {
        try await database.withConnection { try find(id: id, appID: appID, in: $0) }
    }

    /// Sets the fields given and removes those sent as `null`, in one statement; nil when the app
    /// has no template with this id.
    static func update(id: String, appID: String, fields: TemplateFields, now: Double,
                       in database: PostgresPool) async throws -> TemplateRecord? {
        let rows = try await database.query("""
            UPDATE templates SET name = COALESCE(\(fields.name), name),
                   fields = (fields || \(JSONValue.object(fields.content).serialized)::jsonb) - \(fields.removed)::text[],
                   updated_at = to_timestamp(\(now))
            WHERE id = \(id) AND app_id = \(appID)
            RETURNING \(TemplateRecord.columns)
            """)
        return try rows.first.map(TemplateRecord.init(row:))
    }

    /// False when the app has no template with this id.
    static func delete(id: String, appID: String, in database: PostgresPool) async throws -> Bool {
        !(try await database.query("DELETE FROM templates WHERE id = \(id) AND app_id = \(appID) RETURNING id")).isEmpty
    }
}
