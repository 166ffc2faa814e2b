import Foundation

/// Applies migrations in one transaction under an advisory lock, so concurrent processes
/// (several replicas starting at once) apply each migration exactly once.
///
/// A migration runs inside that transaction: it must not contain `BEGIN`/`COMMIT` or
/// statements that refuse transactions (`CREATE INDEX CONCURRENTLY`).
public struct Migrator: Sendable {
    /// "openpush" in ASCII: the key of the transaction-scoped advisory lock.
    static let lockKey: Int64 = 0x6F70_656E_7075_7368

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Loads every `*.sql` file of `directory`, named `<digits>_<name>.sql`, sorted by version.
    /// Other files are ignored; a badly named `.sql` file or a repeated version is an error.
    public static func load(directory: String) throws -> [Migration] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError("cannot read the migrations directory \(directory): \(error.localizedDescription)")
        }
        var migrations: [Migration] = []
        for file in files where file.hasSuffix(".sql") {
            guard let (version, name) = parse(fileName: file) else {
                throw MigrationError("bad migration file name \(file): expected NNNN_name.sql")
            }
            let path = (directory as NSString).appendingPathComponent(file)
            guard let sql = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw MigrationError("cannot read migration \(file) as UTF-8")
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        return try sorted(migrations)
    }

    /// Applies the migrations not yet recorded in `schema_migrations`, in version order.
    /// Returns the versions this call applied (empty when another process got there first).
    @discardableResult
    public func apply(_ migrations: [Migration]) async throws -> [Int] {
        let migrations = try Self.sorted(migrations)
        return try await pool.transaction { connection in
            try connection.withoutReplyDeadline { try Self.apply(migrations, in: connection) }
        }
    }

    /// Inside the transaction: lock, then each migration not yet recorded.
    private static func apply(_ migrations: [Migration], in connection: PostgresConnection) throws -> [Int] {
        // A migration may rewrite a big table, and waits for another process's migrations:
        // the pool's statement and lock timeouts are for requests, not for this.
        try connection.execute(script: "SET LOCAL statement_timeout TO 0; SET LOCAL lock_timeout TO 0")
        try connection.query("SELECT pg_advisory_xact_lock(\(lockKey))")
        // Created after taking the lock so that two first-time runs cannot race on it.
        try connection.execute(script: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version int PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let recorded = try recordedVersions(connection)
        var applied: [Int] = []
        for migration in migrations where !recorded.contains(migration.version) {
            do {
                try connection.execute(script: migration.sql)
            } catch var error as PostgresError {
                error.message = "migration \(migration.version)_\(migration.name): \(error.message)"
                throw error
            }
            try connection.query("""
                INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))
                """)
            applied.append(migration.version)
        }
        return applied
    }

    /// True when every given migration is recorded (for `GET /ready`).
    public func isUpToDate(_ migrations: [Migration]) async throws -> Bool {
        try await pool.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
            guard try exists.first?.decode("present", as: Bool.self) == true else { return migrations.isEmpty }
            let recorded = try Self.recordedVersions(connection)
            return migrations.allSatisfy { recorded.contains($0.version) }
        }
    }

    private static func recordedVersions(_ connection: PostgresConnection) throws -> Set<Int> {
        Set(try connection.query("SELECT version FROM schema_migrations").map { try $0.decode("version", as: Int.self) })
    }

    private static func sorted(_ migrations: [Migration]) throws -> [Migration] {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw MigrationError("duplicate migration version \(next.version): \(previous.name) and \(next.name)")
        }
        return sorted
    }

    /// `0001_init.sql` → (1, "init").
    static func parse(fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let version = Int(digits), version > 0,
              !name.isEmpty,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return nil }
        return (version, String(name))
    }
}
