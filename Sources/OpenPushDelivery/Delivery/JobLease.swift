import Synchronization

/// Whether this worker still holds a leased job. The renewal marks it lost when the lease row
/// no longer names this worker (another worker took the job after the lease ran out); the
/// engine then stops planning and sending the job, and does not record it: the other worker
/// sends it, and sending it here too would push every recipient twice.
final class JobLease: Sendable {
    private let lost = Atomic<Bool>(false)

    var isLost: Bool { lost.load(ordering: .acquiring) }

    func markLost() {
        lost.store(true, ordering: .releasing)
    }
}
