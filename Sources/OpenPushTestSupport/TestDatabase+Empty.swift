import Foundation
import Postgres

extension TestDatabase {
    /// A new database beside this one with no migrations applied, for tests of migrating.
    package func createEmptySibling() async throws -> String {
        let name = "empty_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let connection = try PostgresConnection.connect(conninfo)
        // CREATE DATABASE takes no binds; the name is generated above from hex digits only.
        try connection.execute(script: "CREATE DATABASE \(name)")
        return try PostgresConnection.conninfo(conninfo, database: name)
    }
}
