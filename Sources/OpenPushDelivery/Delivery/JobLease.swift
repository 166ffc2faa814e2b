import Synchronization

/// Whether this worker still holds a leased batch, and which jobs it holds. The renewal marks
/// it lost when a lease row no longer names this worker (another worker took the job after the
/// lease ran out); the engine then stops planning and sending the batch, and does not record
/// what it no longer holds: the other worker sends it, and sending it here too would push every
/// recipient twice.
final class JobLease: Sendable {
    private let lost = Atomic<Bool>(false)
    private let held: Mutex<[Int64]>

    init(jobIDs: [Int64]) {
        held = Mutex(jobIDs)
    }

    var isLost: Bool { lost.load(ordering: .acquiring) }

    /// The jobs the renewal keeps leased.
    var jobIDs: [Int64] { held.withLock { $0 } }

    func markLost() {
        lost.store(true, ordering: .releasing)
    }

    /// Renews only these from now on (the batch dropped the others' jobs).
    func keep(_ jobIDs: [Int64]) {
        held.withLock { $0 = jobIDs }
    }
}
