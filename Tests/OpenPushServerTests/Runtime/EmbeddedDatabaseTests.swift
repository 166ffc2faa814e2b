import Foundation
import Testing
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `openpush dev` must work from a checkout the postgres user cannot enter (a clone under
/// `/root`, mode 700, on a fresh machine where everything runs as root).
@Suite struct EmbeddedDatabaseTests {
    @Test func aReachableStateDirectoryHoldsTheCluster() throws {
        let state = try TemporaryDirectory.make(prefix: "openpush-state")
        defer { try? FileManager.default.removeItem(atPath: state) }
        #expect(EmbeddedDatabase.clusterDirectory(stateDirectory: state) == state + "/postgres")
    }

    @Test(.enabled(if: getuid() == 0, "only root runs PostgreSQL as another user"))
    func anUnreachableOneGetsACompanionDirectoryItLinksTo() throws {
        let closed = try TemporaryDirectory.make(prefix: "openpush-closed")
        defer { try? FileManager.default.removeItem(atPath: closed) }
        chmod(closed, 0o700)
        let state = closed + "/checkout/.openpush"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let directory = EmbeddedDatabase.clusterDirectory(stateDirectory: state)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(directory.hasPrefix("/var/tmp/openpush-dev-"))
        #expect(EmbeddedDatabase.postgresUserCanReach(directory))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: state + "/postgres") == directory)
        // The same checkout finds the same directory next time.
        #expect(EmbeddedDatabase.clusterDirectory(stateDirectory: state) == directory)
    }
}

/// The embedded cluster creates WAL segments without zero-filling them (`EmbeddedDatabase.settings`).
@Suite struct EmbeddedDatabaseSettingsTests {
    @Test func newWALSegmentsAreNotZeroFilled() throws {
        let state = try TemporaryDirectory.make(prefix: "openpush-state")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let database = EmbeddedDatabase(stateDirectory: state)
        let conninfo = try database.start()
        defer { try? database.stop() }
        let connection = try PostgresConnection.connect(conninfo)
        #expect(try connection.query("SHOW wal_init_zero")[0].decode("wal_init_zero", as: String.self) == "off")
    }
}
