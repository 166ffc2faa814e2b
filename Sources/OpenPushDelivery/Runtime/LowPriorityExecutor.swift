import Foundation
import Synchronization

/// Runs the tasks that prefer it on one thread of its own at a lower scheduling priority
/// (`nice` + `niceness`): work that can wait, such as sending webhook events, gives the CPU to
/// push delivery whenever both want it, and catches up when delivery leaves some. On an idle or
/// half-busy machine it runs as soon as anything else.
final class LowPriorityExecutor: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var closed = false
    }

    private let queue = Mutex(Queue())
    /// Signalled when a job arrives or the executor closes; the thread waits on it while empty.
    private let ready = DispatchSemaphore(value: 0)

    /// `niceness`: how much lower than the process the thread runs (Linux's `nice`, 1-19).
    init(name: String, niceness: Int32 = 10) {
        let thread = Thread { [self] in
            // On Linux, PRIO_PROCESS with id 0 sets the calling thread's nice value alone.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
            run()
        }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    /// Ends the thread once the jobs queued so far have run. Tasks still preferring this
    /// executor afterwards would never run: close it only when they are done.
    func close() {
        queue.withLock { $0.closed = true }
        ready.signal()
    }

    private func run() {
        while true {
            ready.wait()
            let (jobs, closed) = queue.withLock { queue -> ([UnownedJob], Bool) in
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return (queue.jobs, queue.closed)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if closed { return }
        }
    }
}
