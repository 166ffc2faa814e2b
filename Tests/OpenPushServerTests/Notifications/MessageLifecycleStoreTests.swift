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
}
