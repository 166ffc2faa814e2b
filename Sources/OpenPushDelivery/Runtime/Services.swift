import OpenPushCore
public import Postgres

/// The long-lived pieces a handler may use, built once per process.
public struct Services: Sendable {
    public var configuration: Configuration
    public var database: PostgresPool
    /// The direct conninfo, for connections outside the pool that need a session of their own
    /// (the workers' LISTEN, migrations, partition upkeep): `OPENPUSH_DATABASE_DIRECT_URL`, else
    /// the pool's (`OPENPUSH_DATABASE_URL`, or the embedded cluster's under `openpush dev`).
    public var databaseConninfo: String
    public var migrations: [Migration]
    /// `migrations/functions/`: run after the migrations on every start.
    public var functions: [FunctionFile] = []
    public var metrics: Metrics
    public var openAPIDocument: [UInt8]
    /// The files of `web/` (the `/docs` page and others), read once at start.
    public var webAssets: WebAssets
    /// The wall clock; tests pass a fixed one.
    public var now: @Sendable () -> Double
    /// The process's one APNs client: the delivery engine's, which the channel routes manage
    /// channels with too (made on first use in a process that does not deliver).
    public var apns = ProcessAPNSClient()

    public init(configuration: Configuration, database: PostgresPool, databaseConninfo: String, migrations: [Migration],
                metrics: Metrics, openAPIDocument: [UInt8], webAssets: WebAssets = WebAssets(),
                now: @escaping @Sendable () -> Double) {
        self.configuration = configuration
        self.database = database
        self.databaseConninfo = databaseConninfo
        self.migrations = migrations
        self.metrics = metrics
        self.openAPIDocument = openAPIDocument
        self.webAssets = webAssets
        self.now = now
    }
}

/// The system clock as unix seconds; everything else takes time as a parameter.
public enum WallClock {
    public static let now: @Sendable () -> Double = { systemNow() }
}
