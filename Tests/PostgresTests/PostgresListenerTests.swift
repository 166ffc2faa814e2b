import Foundation
import OpenPushTestSupport
import Testing
@testable import Postgres

@Suite struct PostgresListenerTests {
    @Test func receivesNotifications() async throws {
        let database = try await TestDatabase.create()
        let pool = database.makePool(size: 1)
        let listener = PostgresListener(conninfo: database.conninfo, channels: ["jobs", "other channel"])
        defer { listener.stop() }

        let received = try await expectNotification(on: listener, channel: "other channel", payload: "hello 'world'") {
            try await pool.notify(channel: "other channel", payload: "hello 'world'")
        }
        #expect(received == PostgresNotification(channel: "other channel", payload: "hello 'world'"))
        await pool.close()
    }
}

/// Sends (via `send`) every 100 ms until `listener` yields `payload` on `channel`: the listener
/// connects asynchronously, and a NOTIFY before its LISTEN is not delivered. Earlier duplicates
/// may stay buffered, so each phase of a test should use its own payload.
func expectNotification(
    on listener: PostgresListener,
    channel: String,
    payload: String,
    timeout: Duration = .seconds(120),
    send: @escaping @Sendable () async throws -> Void
) async throws -> PostgresNotification? {
    try await withThrowingTaskGroup(of: PostgresNotification?.self) { group in
        group.addTask {
            for await notification in listener.notifications where notification.channel == channel && notification.payload == payload {
                return notification
            }
            return nil
        }
        group.addTask {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                try? await send()
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        if first == nil { Issue.record("no notification on \(channel) within \(timeout)") }
        return first
    }
}
