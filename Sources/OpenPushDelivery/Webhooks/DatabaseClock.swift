package import Postgres
import Synchronization

/// PostgreSQL's clock as the webhook dispatcher reads it: `now()` plus an offset in seconds.
/// Every due time, lease and the retry window are taken from the database (one clock for every
/// process), so a test cannot hand the dispatcher a `ManualClock`; it advances this instead,
/// and the SQL adds the offset to `now()`. 0 in production, where `sql` is plain `now()`.
package final class DatabaseClock: Sendable {
    private let offset: Mutex<Double>

    package init(offset: Double = 0) {
        self.offset = Mutex(offset)
    }

    /// Seconds this clock runs ahead of the database's.
    package var offsetSeconds: Double { offset.withLock { $0 } }

    /// Moves the clock on (tests and tools).
    package func advance(by seconds: Double) {
        offset.withLock { $0 += seconds }
    }

    /// The current time as a SQL `timestamptz` expression.
    package var sql: PostgresQuery {
        let seconds = offsetSeconds
        return seconds == 0 ? "now()" : "(now() + make_interval(secs => \(seconds)))"
    }
}
