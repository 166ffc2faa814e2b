import Foundation
import Testing
@testable import OpenPushDelivery
@testable import OpenPushServer

/// The executor webhook attempts run on: its tasks run, on a thread below the process's priority.
@Suite struct LowPriorityExecutorTests {
    /// The calling thread's nice value (Linux: PRIO_PROCESS with id 0 is the calling thread).
    static func threadNiceness() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    @Test func itsTasksRunAndAwaitOnAThreadTenNicer() async throws {
        let executor = LowPriorityExecutor(name: "test-low-priority")
        defer { executor.close() }
        let outside = Self.threadNiceness()
        let (before, after) = await Task(executorPreference: executor) { () -> (Int32, Int32) in
            let before = Self.threadNiceness()
            // After a suspension the task comes back to the executor's thread.
            try? await Task.sleep(for: .milliseconds(10))
            return (before, Self.threadNiceness())
        }.value
        #expect(before == min(19, outside + 10))
        #expect(after == before)
    }

    @Test func manyTasksAllRun() async {
        let executor = LowPriorityExecutor(name: "test-low-priority")
        defer { executor.close() }
        let sum = await withTaskGroup(of: Int.self) { group in
            for value in 1...200 { group.addTask(executorPreference: executor) { value } }
            return await group.reduce(0, +)
        }
        #expect(sum == 200 * 201 / 2)
    }
}
