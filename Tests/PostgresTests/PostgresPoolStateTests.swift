import Testing
@testable import Postgres

/// The pool's bookkeeping without any I/O: connections are strings, waiters are ints.
@Suite struct PostgresPoolStateTests {
    typealias State = PostgresPoolState<String, Int>

    @Test func opensLazilyThenQueuesFirstComeFirstServed() {
        var state = State(size: 1)
        guard case .grant(.connect(let slot)) = state.acquire(id: 1, waiter: 1) else {
            Issue.record("first acquire should open a connection")
            return
        }
        guard case .wait = state.acquire(id: 2, waiter: 2), case .wait = state.acquire(id: 3, waiter: 3) else {
            Issue.record("further acquires should wait")
            return
        }
        #expect(state.statistics == PostgresPoolStatistics(size: 1, open: 1, inUse: 1, waiting: 2))
        guard case .grant(.idle("c1", slot: slot), to: 2) = state.release(slot: slot, connection: "c1") else {
            Issue.record("the oldest waiter should get the connection")
            return
        }
        // A discarded connection hands its slot on, to be reopened by the next waiter.
        guard case .grant(.connect(slot: slot), to: 3) = state.release(slot: slot, connection: nil) else {
            Issue.record("a discarded connection should hand its slot on")
            return
        }
        guard case .none = state.release(slot: slot, connection: nil) else {
            Issue.record("with no waiter, the slot is freed")
            return
        }
        #expect(state.statistics == PostgresPoolStatistics(size: 1, open: 0, inUse: 0, waiting: 0))
    }

    @Test func removedWaitersAreNotServed() {
        var state = State(size: 1)
        _ = state.acquire(id: 1, waiter: 1)
        _ = state.acquire(id: 2, waiter: 2)
        #expect(state.removeWaiter(id: 2) == 2)
        #expect(state.removeWaiter(id: 2) == nil)
        guard case .none = state.release(slot: 0, connection: "c") else {
            Issue.record("no waiter left: the connection goes idle")
            return
        }
        #expect(state.statistics == PostgresPoolStatistics(size: 1, open: 1, inUse: 0, waiting: 0))
    }

    @Test func closeFailsWaitersAndReturnsIdleConnections() {
        var state = State(size: 2)
        _ = state.acquire(id: 1, waiter: 1)
        _ = state.acquire(id: 2, waiter: 2)
        _ = state.release(slot: 1, connection: "idle")
        _ = state.acquire(id: 3, waiter: 3)  // takes "idle" back
        _ = state.release(slot: 1, connection: "idle")
        _ = state.acquire(id: 4, waiter: 4)
        _ = state.acquire(id: 5, waiter: 5)  // waits
        let (waiters, idle) = state.close()
        #expect(waiters == [5])
        #expect(idle.isEmpty)
        guard case .close("late", slot: 0) = state.release(slot: 0, connection: "late") else {
            Issue.record("a connection returned after close should be closed")
            return
        }
        guard case .fail(let error) = state.acquire(id: 6, waiter: 6) else {
            Issue.record("acquire after close should fail")
            return
        }
        #expect(error.kind == .poolClosed)
    }
}
