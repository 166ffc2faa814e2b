import Foundation
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// A batch's completion counts and settles its messages in one statement: a one-user message's
/// row (which holds its stored request) is written once after its insert, counted and completed
/// together, with the counts, `completed_at` and `notification.completed` as before — in one
/// batch of two apps' messages, each counted as its own.
@Suite struct MessageRowWritesTests {
    static func token(_ prefix: String, _ n: Int) -> String {
        prefix + String(format: "%0\(64 - prefix.count)x", n)
    }

    /// Notes every UPDATE of a message row, from now on.
    static func noteWrites(_ harness: DeliveryHarness) async throws {
        try await harness.app.services.database.withConnection { connection in
            try connection.execute(script: """
                CREATE TABLE message_row_writes (message_id text NOT NULL);
                CREATE FUNCTION note_message_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO message_row_writes VALUES (NEW.id);
                    RETURN NEW;
                END $$;
                CREATE TRIGGER note_message_row_write AFTER UPDATE ON messages FOR EACH ROW
                    EXECUTE FUNCTION note_message_row_write();
                """)
        }
    }

    static func send(_ harness: DeliveryHarness, _ app: CreatedApp, to subscriptions: [String]) async throws -> String {
        let response = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: [
            "app_id": .string(app.app.id), "include_subscription_ids": .array(subscriptions.map { .string($0) }),
            "contents": ["en": "Your order shipped"],
        ])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "send: \(response.text)")
    }

    @Test func aOneUserMessagesRowIsWrittenOnceWhenItsOnlyJobCompletes() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let first = harness.created
        let second = try await harness.app.createApp(AppSettings(
            name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
            apnsBundleID: DeliveryHarness.bundleID))
        let device = try await harness.app.insertSubscription(appID: first.app.id, token: Self.token("a1", 1))
        let good = try await harness.app.insertSubscription(appID: second.app.id, token: Self.token("b1", 1))
        let dead = try await harness.app.insertSubscription(appID: second.app.id,
                                                            token: "dead" + String(repeating: "0", count: 60))
        let one = try await Self.send(harness, first, to: [device])
        let two = try await Self.send(harness, second, to: [good, dead])
        try await Self.noteWrites(harness)
        try await harness.drain()

        let writes = try await harness.app.services.database.query("""
            SELECT message_id, count(*)::int AS n FROM message_row_writes GROUP BY message_id
            """).reduce(into: [String: Int]()) { $0[try $1.decode("message_id")] = try $1.decode("n") }
        #expect(writes == [one: 1, two: 1], "each message row counted and completed by one UPDATE")

        // What the row's readers see is unchanged: counts, completed_at, one completion event each.
        for (app, messageID, successful, failed) in [(first, one, 1, 0), (second, two, 1, 1)] {
            let view = await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(app.restKey),
                                                 query: ["app_id": app.app.id])
            let object = try #require(view.json?.objectValue, "\(view.text)")
            #expect(object["successful"] == .int(Int64(successful)) && object["failed"] == .int(Int64(failed)))
            #expect(object["remaining"] == 0)
            #expect(object["completed_at"]?.intValue != nil, "\(view.text)")
            let completions = try await harness.app.services.database.query("""
                SELECT count(*)::int AS n FROM events WHERE app_id = \(app.app.id)
                    AND type = \(EventType.notificationCompleted.rawValue) AND data->>'notification_id' = \(messageID)
                """).firstRow().decode("n", as: Int.self)
            #expect(completions == 1)
        }
    }
}
