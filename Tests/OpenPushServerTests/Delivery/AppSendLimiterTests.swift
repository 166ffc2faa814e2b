@testable import OpenPushDelivery
import Synchronization
import Testing

/// Each app's requests in flight are capped: its next pushes wait (urgent ones first)
/// while another app's go straight through.
@Suite struct AppSendLimiterTests {
    final class Order: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test func anAppAtItsCapWaitsUrgentFirstWhileAnotherAppSends() async throws {
        let limiter = AppSendLimiter(perApp: 2)
        await limiter.acquire(app: "app_a", urgent: false)
        await limiter.acquire(app: "app_a", urgent: false)
        let order = Order()
        let bulk = Task {
            await limiter.acquire(app: "app_a", urgent: false)
            order.append("bulk")
        }
        // The bulk waiter is queued before the urgent one.
        while limiter.waiting(app: "app_a") < 1 { await Task.yield() }
        let urgent = Task {
            await limiter.acquire(app: "app_a", urgent: true)
            order.append("urgent")
        }
        while limiter.waiting(app: "app_a") < 2 { await Task.yield() }
        // Another app is not held up by app_a's queue.
        await limiter.acquire(app: "app_b", urgent: false)
        #expect(limiter.inFlight(app: "app_b") == 1 && limiter.inFlight(app: "app_a") == 2)
        #expect(order.all.isEmpty)

        limiter.release(app: "app_a")
        await urgent.value
        #expect(order.all == ["urgent"])
        limiter.release(app: "app_a")
        await bulk.value
        #expect(order.all == ["urgent", "bulk"])
        #expect(limiter.inFlight(app: "app_a") == 2)
        limiter.release(app: "app_a")
        limiter.release(app: "app_a")
        limiter.release(app: "app_b")
        #expect(limiter.inFlight(app: "app_a") == 0 && limiter.inFlight(app: "app_b") == 0)
    }
}
