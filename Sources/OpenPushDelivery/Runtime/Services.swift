import OpenPushCore
package import Postgres

/// The long-lived pieces a handler may use, built once per process.
package struct Services: Sendable {
    package var configuration: Configuration
    package var database: PostgresPool
    /// The direct conninfo, for connections outside the pool that need a session of their own
    /// (the workers' LISTEN, migrations, partition upkeep): `OPENPUSH_DATABASE_DIRECT_URL`, else
    /// the pool's (`OPENPUSH_DATABASE_URL`, or the embedded cluster's under `openpush dev`).
    package var databaseConninfo: String
    package var migrations: [Migration]
    /// `migrations/functions/`: run after the migrations on every start.
    package var functions: [FunctionFile] = []
    package var metrics: Metrics
    package var openAPIDocument: [UInt8]
    /// The files of `web/` (the `/docs` page and others), read once at start.
    package var webAssets: WebAssets
    /// The wall clock; tests pass a fixed one.
    package var now: @Sendable () -> Double
    /// The process's one APNs client: the delivery engine's, which the channel routes manage
    /// channels with too (made on first use in a process that does not deliver).
    package var apns = ProcessAPNSClient()

    package init(configuration: Configuration, database: PostgresPool, databaseConninfo: String, migrations: [Migration],
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
package enum WallClock {
    package static let now: @Sendable () -> Double = { systemNow() }
}
