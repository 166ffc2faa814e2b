import Foundation

/// Applies migrations under an advisory lock, so concurrent processes (several replicas
/// starting at once) apply each migration exactly once.
///
/// Each migration runs in a transaction of its own, so an upgrade across many versions holds
/// one migration's locks at a time, never the sum of them all. A lock the migration needs is
/// waited for at most `Settings.lockTimeout`: a migration queued behind a long request would
/// otherwise block every request queued behind it. It then rolls back and tries again later
/// (`MigrationRetrySchedule`). A migration's batched backfill (see `Migration`) commits batch
/// by batch after it.
///
/// A migration must not contain `BEGIN`/`COMMIT` or statements that refuse transactions
/// (`CREATE INDEX CONCURRENTLY`).
///
/// After the migrations, the SQL function files (`FunctionFile`) run on every start, all in one
/// transaction under the same lock and timeouts, so the database holds their definitions.
public struct Migrator: Sendable {
    public struct Settings: Sendable {
        /// The longest a migration's statement waits for one lock before the try is rolled back.
        public var lockTimeout: Duration = .seconds(5)
        /// Tries of one migration (or one backfill batch) that ran out of `lockTimeout`.
        public var attempts = 10
        public var retrySchedule = MigrationRetrySchedule()
        /// Told of each try given up on a busy lock, before the pause (for the log).
        public var retrying: @Sendable (_ step: MigrationStep, _ attempt: Int, _ pause: Duration) -> Void = { _, _, _ in }
        /// Told when the function files were left alone because the database has a migration
        /// newer than this release knows (for the log): its newest version.
        public var keptNewerFunctions: @Sendable (_ databaseVersion: Int) -> Void = { _ in }

        public init() {}
    }

    /// "openpush" in ASCII: the key of the transaction-scoped advisory lock.
    static let lockKey: Int64 = 0x6F70_656E_7075_7368

    private let pool: PostgresPool
    let settings: Settings

    public init(pool: PostgresPool, settings: Settings = Settings()) {
        self.pool = pool
        self.settings = settings
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

    /// Applies the migrations not yet recorded in `schema_migrations`, in version order, and
    /// finishes any backfill a stopped upgrade left; then runs `functions` (see
    /// `define(_:newestKnown:)`). Returns the versions this call applied (empty when another
    /// process got there first).
    @discardableResult
    public func apply(_ migrations: [Migration], functions: [FunctionFile] = []) async throws -> [Int] {
        let migrations = try Self.sorted(migrations)
        // Most starts have nothing to do: one transaction finds that, not one per migration.
        let complete = try await locked { connection in
            try Self.prepareTable(connection)
            return try Self.completeVersions(connection)
        }
        var applied: [Int] = []
        for migration in migrations where !complete.contains(migration.version) {
            let state = try await retryingBusyLocks(MigrationStep(migration)) { connection in
                try Self.applyIfPending(migration, in: connection)
            }
            if state == .applied { applied.append(migration.version) }
            if state != .complete, let backfill = migration.backfill {
                while try await retryingBusyLocks(MigrationStep(migration), { connection in
                    try Self.backfillBatch(backfill, of: migration, in: connection)
                }) {}
            }
        }
        if !functions.isEmpty {
            try await define(functions, newestKnown: migrations.last?.version ?? 0)
        }
        return applied
    }

    /// What one migration's transaction found or did.
    private enum State: Equatable {
        /// Applied now; its backfill, if any, is still to run.
        case applied
        /// Applied earlier, with its backfill unfinished.
        case backfilling
        case complete
    }

    /// Created (and brought up to date) under the lock, so that two first-time runs cannot race on it.
    static func prepareTable(_ connection: PostgresConnection) throws {
        // Without a NOTICE per start for what exists already.
        try connection.execute(script: """
            SET LOCAL client_min_messages TO warning;
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version int PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS backfilled boolean NOT NULL DEFAULT true
            """)
    }

    private static func applyIfPending(_ migration: Migration, in connection: PostgresConnection) throws -> State {
        let recorded = try connection.query("SELECT backfilled FROM schema_migrations WHERE version = \(migration.version)")
        if let row = recorded.first {
            return try row.decode("backfilled", as: Bool.self) ? .complete : .backfilling
        }
        do {
            try connection.execute(script: migration.body)
        } catch var error as PostgresError {
            error.message = "migration \(migration.version)_\(migration.name): \(error.message)"
            throw error
        }
        try connection.query("""
            INSERT INTO schema_migrations (version, name, backfilled)
            VALUES (\(migration.version), \(migration.name), \(migration.backfill == nil))
            """)
        return .applied
    }

    /// One batch; true while there may be more. The batch that changes no row marks it done.
    private static func backfillBatch(_ backfill: String, of migration: Migration,
                                      in connection: PostgresConnection) throws -> Bool {
        let recorded = try connection.query("SELECT backfilled FROM schema_migrations WHERE version = \(migration.version)")
        guard try recorded.first?.decode("backfilled", as: Bool.self) == false else { return false }
        let changed: Int
        do {
            changed = try connection.query(PostgresQuery(unsafeSQL: backfill)).affectedRows
        } catch var error as PostgresError {
            error.message = "migration \(migration.version)_\(migration.name), backfill: \(error.message)"
            throw error
        }
        guard changed == 0 else { return true }
        try connection.query("UPDATE schema_migrations SET backfilled = true WHERE version = \(migration.version)")
        return false
    }

    /// `body` in a transaction under the advisory lock, tried again when a lock stays busy
    /// past `lockTimeout`.
    func retryingBusyLocks<T: Sendable>(_ step: MigrationStep,
                                        _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        var schedule = settings.retrySchedule
        var attempt = 1
        while true {
            do {
                return try await locked(body)
            } catch let error as PostgresError where error.sqlState == "55P03" && attempt < settings.attempts {
                let pause = schedule.next()
                settings.retrying(step, attempt, pause)
                try await Task.sleep(for: pause)
                attempt += 1
            } catch let error as PostgresError where error.sqlState == "55P03" {
                var error = error
                error.message = "\(step): a lock stayed busy through " +
                    "\(attempt) tries of \(settings.lockTimeout) each: \(error.message)"
                throw error
            }
        }
    }

    /// A transaction holding the advisory lock, which it waits for without a bound (another
    /// process's migration may take minutes); every other lock is bounded by `lockTimeout`.
    func locked<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let lockTimeout = PostgresTimeouts.milliseconds(settings.lockTimeout)
        return try await pool.transaction { connection in
            try connection.withoutReplyDeadline {
                // A migration may rewrite a big table: the pool's statement timeout is for requests.
                try connection.execute(script: "SET LOCAL statement_timeout TO 0; SET LOCAL lock_timeout TO 0")
                try connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
                try connection.execute(script: "SET LOCAL lock_timeout TO \(max(1, lockTimeout))")
                return try body(connection)
            }
        }
    }

    /// True when every given migration is applied, backfill included (for `GET /ready`).
    public func isUpToDate(_ migrations: [Migration]) async throws -> Bool {
        try await pool.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
            guard try exists.first?.decode("present", as: Bool.self) == true else { return migrations.isEmpty }
            let complete = try Self.completeVersions(connection)
            return migrations.allSatisfy { complete.contains($0.version) }
        }
    }

    /// Applied, backfill included: a complete migration never becomes incomplete again.
    private static func completeVersions(_ connection: PostgresConnection) throws -> Set<Int> {
        Set(try connection.query("SELECT version FROM schema_migrations WHERE backfilled")
            .map { try $0.decode("version", as: Int.self) })
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
