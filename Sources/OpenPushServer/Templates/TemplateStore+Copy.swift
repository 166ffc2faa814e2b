import OpenPushCore
import OpenPushDelivery
import Postgres

/// Why a template was not copied.
enum TemplateCopyRefusal: Error, Sendable, Equatable {
    case unknownTarget(String)
    case unknownTemplate(String)
}

extension TemplateStore {
    /// A new template in `targetAppID` with the name and fields of `sourceAppID`'s template `id`,
    /// in one statement under a share lock on the target app (it cannot vanish meanwhile).
    static func copy(id: String, from sourceAppID: String, to targetAppID: String, now: Double,
                     in database: PostgresPool) async throws -> TemplateRecord {
        let newID = Identifier.make(prefix: "tpl", now: now, random: KeyMaterial.identifierEntropy())
        return try await database.transaction { connection in
            guard try !connection.query("SELECT id FROM apps WHERE id = \(targetAppID) FOR SHARE").isEmpty else {
                throw TemplateCopyRefusal.unknownTarget(targetAppID)
            }
            let rows = try connection.query("""
                INSERT INTO templates (id, app_id, name, fields, created_at, updated_at)
                SELECT \(newID), \(targetAppID), name, fields, to_timestamp(\(now)), to_timestamp(\(now))
                FROM templates WHERE id = \(id) AND app_id = \(sourceAppID)
                RETURNING \(TemplateRecord.columns)
                """)
            guard let row = rows.first else { throw TemplateCopyRefusal.unknownTemplate(id) }
            return try TemplateRecord(row: row)
        }
    }
}
