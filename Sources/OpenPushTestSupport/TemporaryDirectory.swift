import Foundation

/// A directory under the system temp dir, world-traversable so that PostgreSQL, which runs as
/// the `postgres` user when tests run as root, can reach a cluster inside it.
package enum TemporaryDirectory {
    package static func make(prefix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        return path
    }
}
