import Foundation
package import Postgres

/// A PostgreSQL cluster of one test's own, migrated, for tests that stop and start the
/// database (the shared test cluster must stay up for everyone else).
package final class PrivateCluster: Sendable {
    package let cluster: PostgresCluster
    package var conninfo: String { cluster.conninfo }

    package init(prefix: String) async throws {
        let directory = try TemporaryDirectory.make(prefix: prefix)
        var cluster = PostgresCluster(directory: directory)
        cluster.settings = Self.settings
        self.cluster = cluster
        try cluster.initializeIfNeeded()
        try cluster.start()
        let pool = PostgresPool(conninfo: cluster.conninfo, size: 1)
        let migrations = TestApp.repositoryRoot + "/migrations"
        try await Migrator(pool: pool).apply(Migrator.load(directory: migrations),
                                             functions: FunctionFile.load(migrationsDirectory: migrations))
        await pool.close()
    }

    /// No TCP listener, only the Unix socket in the cluster's own directory (`conninfo` goes
    /// there): these tests stop the server and start it again on the same port, and while it is
    /// down another test may be given that port on 127.0.0.1. A later `-c listen_addresses`
    /// overrides the one `PostgresCluster.start()` passes first.
    package static let settings = ["listen_addresses": ""]

    deinit {
        try? cluster.stop(mode: .immediate)
        try? FileManager.default.removeItem(atPath: cluster.directory)
    }
}
