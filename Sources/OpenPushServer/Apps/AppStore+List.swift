import OpenPushDelivery
package import Postgres

/// One page of apps and how many there are in all.
package struct AppPage: Sendable {
    package var apps: [AppRecord]
    package var total: Int
}

extension AppStore {
    /// Newest first; ids break ties between apps created in the same instant.
    package static func list(limit: Int, offset: Int, in database: PostgresPool) async throws -> AppPage {
        try await database.withConnection { connection in
            let rows = try connection.query(AppRecord.columns + " ORDER BY apps.created_at DESC, id DESC LIMIT \(limit) OFFSET \(offset)")
            let total: Int = try connection.query("SELECT count(*)::int8 AS total FROM apps")[0].decode("total")
            return AppPage(apps: try rows.map(AppRecord.init(row:)), total: total)
        }
    }
}
