import Foundation
public import Postgres

/// A PostgreSQL cluster of one test's own, migrated, for tests that stop and start the
/// database (the shared test cluster must stay up for everyone else).
public final class PrivateCluster: Sendable {
    public let cluster: PostgresCluster
    public var conninfo: String { cluster.conninfo }

    public init(prefix: String) async throws {
        let directory = try TemporaryDirectory.make(prefix: prefix)
        cluster = PostgresCluster(directory: directory)
        try cluster.initializeIfNeeded()
        try cluster.start()
        let pool = PostgresPool(conninfo: cluster.conninfo, size: 1)
        try await Migrator(pool: pool).apply(Migrator.load(directory: TestApp.repositoryRoot + "/migrations"))
        await pool.close()
    }

    deinit {
        try? cluster.stop(mode: .immediate)
        try? FileManager.default.removeItem(atPath: cluster.directory)
    }
}
