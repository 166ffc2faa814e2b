/// What the migrator runs in one transaction: one numbered migration (or a batch of its
/// backfill), or the SQL function files. Retries and errors name it.
public enum MigrationStep: Sendable, Equatable, CustomStringConvertible {
    case migration(version: Int, name: String)
    case functions

    init(_ migration: Migration) {
        self = .migration(version: migration.version, name: migration.name)
    }

    /// The migration's version; nil for the function files.
    public var version: Int? {
        if case .migration(let version, _) = self { version } else { nil }
    }

    public var description: String {
        switch self {
        case .migration(let version, let name): "migration \(version)_\(name)"
        case .functions: "SQL function files"
        }
    }
}
