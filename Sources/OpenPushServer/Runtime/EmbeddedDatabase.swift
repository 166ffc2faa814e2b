import Foundation
public import Postgres

/// The private PostgreSQL cluster of `openpush dev`: created under `.openpush/` on first use,
/// started (or reused when already running), holding one `openpush` database.
public struct EmbeddedDatabase: Sendable {
    public static let databaseName = "openpush"
    public let cluster: PostgresCluster

    public init(stateDirectory: String) {
        cluster = PostgresCluster(directory: stateDirectory + "/postgres")
    }

    /// Starts the cluster and returns the conninfo of the `openpush` database.
    public func start() throws -> String {
        try cluster.initializeIfNeeded()
        try cluster.start()
        let admin = try PostgresConnection.connect(cluster.conninfo)
        let existing = try admin.query("SELECT 1 FROM pg_database WHERE datname = \(Self.databaseName)")
        if existing.isEmpty {
            try cluster.createDatabase(Self.databaseName)
        }
        return cluster.conninfo.replacingOccurrences(of: "dbname=postgres", with: "dbname=\(Self.databaseName)")
    }

    public func stop() throws {
        try cluster.stop(mode: .fast)
    }
}
