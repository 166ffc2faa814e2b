import OpenPushDelivery
import Crypto
import Foundation
package import Postgres
import Subprocess

/// The private PostgreSQL cluster of `openpush dev`: created under `.openpush/` on first use,
/// started (or reused when already running), holding one `openpush` database.
package struct EmbeddedDatabase: Sendable {
    package static let databaseName = "openpush"
    package let cluster: PostgresCluster

    package init(stateDirectory: String) {
        var cluster = PostgresCluster(directory: Self.clusterDirectory(stateDirectory: stateDirectory))
        cluster.settings = Self.settings
        self.cluster = cluster
    }

    /// A young cluster creates a 16 MB WAL segment for every 16 MB written until checkpoints
    /// start recycling old ones, and zero-filling one held up the request that crossed into
    /// it: in bench/delivery.sh one 2,000-device start in fifty took 40 ms instead of 13.
    /// Created sparse, as PostgreSQL advises for copy-on-write file systems, a segment costs
    /// nothing; a full disk then fails a WAL write instead of the segment's creation.
    static let settings = ["wal_init_zero": "off"]

    /// `<state>/postgres`, unless the server could not reach it: as root, PostgreSQL runs as the
    /// `postgres` user, who cannot enter a checkout under `/root` (mode 700). Then the cluster
    /// lives in a directory of its own under `/var/tmp`, one per checkout, and `<state>/postgres`
    /// points at it.
    static func clusterDirectory(stateDirectory: String) -> String {
        let preferred = stateDirectory + "/postgres"
        guard getuid() == 0, !postgresUserCanReach(stateDirectory) else { return preferred }
        let fallback = "/var/tmp/openpush-dev-" + SHA256.hash(Array(stateDirectory.utf8)).prefix(8).hexString
        try? FileManager.default.createDirectory(atPath: fallback, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o755])
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: preferred)) == nil,
           !FileManager.default.fileExists(atPath: preferred) {
            try? FileManager.default.createSymbolicLink(atPath: preferred, withDestinationPath: fallback)
        }
        return fallback
    }

    static func postgresUserCanReach(_ path: String) -> Bool {
        (try? Subprocess.run("/usr/sbin/runuser", ["-u", "postgres", "--", "test", "-x", path]))?.status == 0
    }

    /// Starts the cluster and returns the conninfo of the `openpush` database.
    package func start() throws -> String {
        try cluster.initializeIfNeeded()
        try cluster.start()
        let admin = try PostgresConnection.connect(cluster.conninfo)
        let existing = try admin.query("SELECT 1 FROM pg_database WHERE datname = \(Self.databaseName)")
        if existing.isEmpty {
            try cluster.createDatabase(Self.databaseName)
        }
        return cluster.conninfo.replacingOccurrences(of: "dbname=postgres", with: "dbname=\(Self.databaseName)")
    }

    package func stop() throws {
        try cluster.stop(mode: .fast)
    }
}
