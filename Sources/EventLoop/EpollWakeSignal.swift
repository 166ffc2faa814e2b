import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wakes an event loop's thread sleeping in epoll_wait: a non-blocking pipe, written at most
/// once until the thread has taken notice, so a burst of sends costs one write.
package final class EpollWakeSignal: Sendable {
    /// The end the loop's thread waits on.
    package let descriptor: Int32
    private let writeEnd: Int32
    private let pending = Atomic(false)

    package init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe: \(errno)")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL, 0) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    package func wake() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Called by the woken thread before it looks for work, so a wake after the look is not lost.
    package func acknowledge() {
        var buffer: (UInt64, UInt64) = (0, 0)
        while read(descriptor, &buffer, 16) > 0 {}
        pending.store(false, ordering: .releasing)
    }
}
