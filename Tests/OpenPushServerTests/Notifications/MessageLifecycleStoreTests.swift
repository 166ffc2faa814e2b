import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// The one owner of a message's lifecycle, over the database: every input goes through the
/// machine under the row's lock, a message ends once, an input the machine refuses writes
/// nothing, and one app's message never moves another's.
@Suite struct MessageLifecycleStoreTests {
    static let token = String(repeating: "5e", count: 32)

    /// A scheduled notification of the app (an hour out: nothing expands it meanwhile).
    static func scheduled(_ app: TestApp, _ created: CreatedApp) async throws -> String {
        _ = try await app.insertSubscription(appID: created.app.id, token: token)
        let response = await app.request(.post, "/notifications", headers: .restKey(created.restKey), json: [
            "app_id": .string(created.app.id), "contents": ["en": "Hi"], "included_segments": ["Subscribed Users"],
            "send_after": .double(app.services.now() + 3600),
        ])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
    }

    struct Row: Equatable {
        var expansion: String?
        var cancelled: Bool
        var completed: Bool
        var completions: Int
    }

    static func row(_ app: TestApp, _ messageID: String) async throws -> Row {
        let row = try await app.services.database.query("""
            SELECT expansion, cancelled_at IS NOT NULL AS cancelled, completed_event_at IS NOT NULL AS completed,
                   (SELECT count(*)::int FROM events e WHERE e.app_id = m.app_id
                      AND e.type = \(EventType.notificationCompleted.rawValue)) AS completions
            FROM messages m WHERE id = \(messageID)
            """)[0]
        return Row(expansion: try row.decode("expansion"), cancelled: try row.decode("cancelled"),
                   completed: try row.decode("completed"), completions: try row.decode("completions"))
    }

    static func apply(_ app: TestApp, _ input: MessageLifecycle.Input, _ messageID: String) async throws {
        try await app.services.database.transaction { try MessageLifecycleStore.apply(input, messageID: messageID, in: $0) }
    }

    @Test func aCancelEndsItsOwnAppsMessageOnceAndNoOtherApps() async throws {
        let app = try await TestApp.make()
        let (first, second) = (try await app.createApp(), try await app.createApp())
        let (a, b) = (try await Self.scheduled(app, first), try await Self.scheduled(app, second))
        let pending = Row(expansion: "pending", cancelled: false, completed: false, completions: 0)
        // The other app's key does not find it.
        let foreign = try await app.services.database.transaction {
            try MessageLifecycleStore.cancel(messageID: a, appID: second.app.id, tenantID: nil, now: app.services.now(), in: $0)
        }
        #expect(!foreign)
        #expect(try await Self.row(app, a) == pending)
        let cancelled = await app.request(.delete, "/notifications/\(a)", headers: .restKey(first.restKey),
                                          query: ["app_id": first.app.id])
        #expect(cancelled.status == 200, "\(cancelled.text)")
        let ended = Row(expansion: "cancelled", cancelled: true, completed: true, completions: 1)
        #expect(try await Self.row(app, a) == ended)
        #expect(try await Self.row(app, b) == pending)
        // Nothing ends it again.
        try await Self.apply(app, .jobFinished, a)
        _ = await app.request(.delete, "/notifications/\(a)", headers: .restKey(first.restKey), query: ["app_id": first.app.id])
        #expect(try await Self.row(app, a) == ended)
    }

    @Test func anInputTheMachineRefusesWritesNothing() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await Self.scheduled(app, created)
        _ = await app.request(.delete, "/notifications/\(id)", headers: .restKey(created.restKey), query: ["app_id": created.app.id])
        let before = try await Self.row(app, id)
        await #expect(throws: InvariantViolation.self) { try await Self.apply(app, .expansionPageWritten(last: true), id) }
        await #expect(throws: InvariantViolation.self) { try await Self.apply(app, .jobsQueued, id) }
        #expect(try await Self.row(app, id) == before)
    }

    @Test func theLastEmptyPageEndsTheExpansionAndTheMessage() async throws {
        let app = try await TestApp.make()
        let (first, second) = (try await app.createApp(), try await app.createApp())
        let (a, b) = (try await Self.scheduled(app, first), try await Self.scheduled(app, second))
        try await Self.apply(app, .expansionPageWritten(last: false), a)
        #expect(try await Self.row(app, a) == Row(expansion: "pending", cancelled: false, completed: false, completions: 0))
        try await Self.apply(app, .expansionPageWritten(last: true), a)
        #expect(try await Self.row(app, a) == Row(expansion: "done", cancelled: false, completed: true, completions: 1))
        #expect(try await Self.row(app, b) == Row(expansion: "pending", cancelled: false, completed: false, completions: 0))
        try await Self.apply(app, .expansionFailed(reason: "segment gone", final: true), b)
        #expect(try await Self.row(app, b) == Row(expansion: "failed", cancelled: false, completed: true, completions: 1))
        let reason = try await app.services.database.query("SELECT failed_reason FROM messages WHERE id = \(b)")[0]
        #expect(try reason.decode("failed_reason", as: String?.self) == "segment gone")
    }

    /// A queued notification of the app with its one job (expanded with its send).
    static func queued(_ app: TestApp, _ created: CreatedApp, externalID: String, byte: String = "6f") async throws -> String {
        _ = try await app.insertSubscription(appID: created.app.id, token: String(repeating: byte, count: 32), externalID: externalID)
        let response = await app.request(.post, "/notifications", headers: .restKey(created.restKey), json: [
            "app_id": .string(created.app.id), "contents": ["en": "Hi"], "include_external_user_ids": [.string(externalID)],
        ])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
    }

    @Test func theBatchedFinishSettlesSeveralMessagesAndEmitsEachCompletionOnce() async throws {
        let app = try await TestApp.make()
        let (first, second) = (try await app.createApp(), try await app.createApp())
        let a = try await Self.queued(app, first, externalID: "u-a", byte: "a1")
        let b = try await Self.queued(app, first, externalID: "u-b", byte: "b1")
        let c = try await Self.queued(app, second, externalID: "u-c", byte: "c1")
        let d = try await Self.queued(app, second, externalID: "u-d", byte: "d1")
        let queued = Row(expansion: "done", cancelled: false, completed: false, completions: 0)
        #expect(try await Self.row(app, a) == queued)
        // a, b and c finished their jobs; d still has one.
        try await app.services.database.query("DELETE FROM delivery_jobs WHERE message_id = ANY(\([a, b, c])::text[])")
        try await app.services.database.transaction {
            try MessageLifecycleStore.apply(.jobFinished, messageIDs: [c, a, d, b, a, "msg_missing"], in: $0)
        }
        #expect(try await Self.row(app, a) == Row(expansion: "done", cancelled: false, completed: true, completions: 2))
        #expect(try await Self.row(app, b) == Row(expansion: "done", cancelled: false, completed: true, completions: 2))
        #expect(try await Self.row(app, c) == Row(expansion: "done", cancelled: false, completed: true, completions: 1))
        #expect(try await Self.row(app, d) == Row(expansion: "done", cancelled: false, completed: false, completions: 1))
        let completed = try await app.services.database.query("""
            SELECT data->>'notification_id' AS id FROM events WHERE type = \(EventType.notificationCompleted.rawValue)
            ORDER BY 1
            """).map { try $0.decode("id", as: String.self) }
        #expect(completed == [a, b, c].sorted())
        // Settled messages stay settled: nothing emits twice.
        try await app.services.database.transaction {
            try MessageLifecycleStore.apply(.jobFinished, messageIDs: [a, b, c, d], in: $0)
        }
        #expect(try await Self.row(app, c) == Row(expansion: "done", cancelled: false, completed: true, completions: 1))
        #expect(try await Self.row(app, d) == Row(expansion: "done", cancelled: false, completed: false, completions: 1))
    }

    @Test func theBatchedFormRefusesWhatTheMachineRefuses() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let queued = try await Self.queued(app, created, externalID: "u-1")
        let before = try await Self.row(app, queued)
        // A queued message has no expansion page to take.
        await #expect(throws: InvariantViolation.self) {
            try await app.services.database.transaction {
                try MessageLifecycleStore.apply(.expansionPageWritten(last: true), messageIDs: [queued], in: $0)
            }
        }
        #expect(try await Self.row(app, queued) == before)
    }
}
