import Foundation
import Synchronization

/// The threads that plan delivery jobs: rendering a job's Liquid for each recipient is CPU work
/// that a hostile template can make last (up to its budget per text), and on the cooperative
/// pool it would hold the threads that serve HTTP and renew leases. Here it only competes for
/// the CPU, which the kernel shares. One per core, shared by every engine of the process.
final class PlanningExecutor: TaskExecutor, Sendable {
    static let shared = PlanningExecutor(name: "openpush-planning",
                                         threads: max(1, ProcessInfo.processInfo.activeProcessorCount))

    private let queue = Mutex(Queue())
    /// Signalled once per job queued; each thread takes one job per signal.
    private let ready = DispatchSemaphore(value: 0)

    /// Jobs in the order they came: a job that yields goes to the back, behind the others.
    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0

        mutating func pop() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= jobs.count {
                // A queue that never empties still gives back the room of the jobs it ran.
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private init(name: String, threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in run() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    private func run() {
        while true {
            ready.wait()
            guard let job = queue.withLock({ $0.pop() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
