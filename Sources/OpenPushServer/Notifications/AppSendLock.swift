import OpenPushCore
import OpenPushDelivery
import Postgres

/// Serialises one app's sends across every process: each runs in a transaction holding the app's
/// transaction-scoped advisory lock, so an idempotency check and its save cannot race, and a
/// burst of heavy sends from one app occupies one pooled connection at a time.
///
/// The lock is only ever *tried*: a send that finds it taken gives its connection back and tries
/// again a little later, so waiting behind another send of the same app never holds a
/// connection that other apps' requests need.
enum AppSendLock {
    /// Past this, a send still waiting is answered `503`: the app's earlier sends are stuck.
    static let maximumWait: Duration = .seconds(60)

    static let stillBusy = APIError(status: 503, "earlier sends of this app are still running, try again shortly",
                                    headers: ["Retry-After": "1"])

    /// Runs `body` in a transaction that holds the app's send lock; a thrown error rolls it back.
    static func withLock<T: Sendable>(appID: String, database: PostgresPool,
                                      _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let key = appID + "/sends"
        let started = ContinuousClock.now
        var retry = LockRetrySchedule()
        while true {
            let done: Done<T>? = try await database.transaction { connection in
                let locked = try connection.query("""
                    SELECT pg_try_advisory_xact_lock(hashtextextended(\(key), 0)) AS locked
                    """)[0].decode("locked", as: Bool.self)
                return locked ? Done(value: try body(connection)) : nil
            }
            if let done { return done.value }
            let delay = retry.next()
            guard ContinuousClock.now - started + delay <= maximumWait else { throw stillBusy }
            try await Task.sleep(for: delay)
        }
    }

    /// The body's value, told apart from "the lock was taken" even when `T` is itself optional.
    private struct Done<T: Sendable>: Sendable {
        var value: T
    }
}

/// Pauses between tries of a busy lock: 5 ms doubling to 100 ms. Short enough that a send
/// follows the one before it closely, long enough that thirty waiting sends cost the database
/// a few hundred cheap queries a second.
struct LockRetrySchedule {
    static let first: Duration = .milliseconds(5)
    static let longest: Duration = .milliseconds(100)

    private(set) var current: Duration = first

    mutating func next() -> Duration {
        defer { current = min(current * 2, Self.longest) }
        return current
    }
}
