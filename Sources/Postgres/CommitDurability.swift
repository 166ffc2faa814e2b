/// Whether a `COMMIT` waits for its WAL to reach disk.
///
/// PostgreSQL's default (`synchronous_commit = on`) makes every commit wait for a flush. A
/// delivery worker commits twice per job (its lease, its outcome), each time holding row locks
/// that the other workers of the same fan-out wait for (the app's turn, the message's counts), so
/// every job waited for several flushes in a row. Work that is safe to redo may commit without
/// waiting: only a server crash (not a clean stop, which flushes everything) can then lose the last
/// moments of such transactions, each one whole, and never one that a later flushed commit depends
/// on (the WAL is flushed in order).
public enum CommitDurability: Sendable, Equatable {
    /// `COMMIT` returns once the WAL is on disk.
    case flushed
    /// `COMMIT` returns before the flush (`synchronous_commit = off` for that transaction); the
    /// WAL writer flushes it within moments.
    case deferred

    /// The `SET LOCAL` this durability adds to a transaction, if any.
    var localSetting: (name: String, value: String)? {
        switch self {
        case .flushed: nil
        case .deferred: ("synchronous_commit", "off")
        }
    }
}
