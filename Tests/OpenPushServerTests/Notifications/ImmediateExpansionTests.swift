import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// A notification that names its audience outright and is due now is expanded in its send's
/// transaction: its job is queued and its row expanded when the API answers, and a worker
/// delivers it with no expansion step. Everything else still expands on the workers, and the
/// other app's messages are untouched.
@Suite struct ImmediateExpansionTests {
    static func token(_ byte: String) -> String { String(repeating: byte, count: 32) }

    static func send(_ harness: DeliveryHarness, _ fields: JSONObject, app: CreatedApp? = nil,
                     headers extra: HTTPHeaders = [:]) async -> TestResponse {
        let created = app ?? harness.created
        var body: JSONObject = ["app_id": .string(created.app.id), "contents": ["en": "Shipped"]]
        for field in fields { body[field.key] = field.value }
        var headers = HTTPHeaders.restKey(created.restKey)
        for field in extra { headers.add(name: field.name, value: field.value) }
        return await harness.app.request(.post, "/notifications", headers: headers, json: .object(body))
    }

    struct Stored: Equatable {
        var expansion: String?
        var audienceTotal: Int
        var jobs: Int
        var recipients: Int
    }

    static func stored(_ harness: DeliveryHarness, _ id: String) async throws -> Stored {
        let row = try await harness.app.services.database.query("""
            SELECT expansion, audience_total,
                   (SELECT count(*)::int FROM delivery_jobs j WHERE j.message_id = m.id) AS jobs,
                   (SELECT COALESCE(sum(cardinality(j.subscription_ids)), 0)::int FROM delivery_jobs j
                    WHERE j.message_id = m.id) AS recipients
            FROM messages m WHERE id = \(id)
            """)[0]
        return Stored(expansion: try row.decode("expansion"), audienceTotal: try row.decode("audience_total"),
                      jobs: try row.decode("jobs"), recipients: try row.decode("recipients"))
    }

    static func messageID(_ response: TestResponse) throws -> String {
        let id = try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
        try #require(!id.isEmpty, "\(response.text)")
        return id
    }

    @Test func aOneUserSendIsQueuedWhenTheAPIAnswersAndDeliveredWithNoExpansionStep() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await harness.app.createApp()
        let mine = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token("a1"),
                                                            externalID: "user-1")
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token("a2"), externalID: "user-2")
        _ = try await harness.app.insertSubscription(appID: other.app.id, token: Self.token("b1"), externalID: "user-1")
        // The other app's scheduled send waits on its worker, whatever this app sends.
        let scheduled = try Self.messageID(await Self.send(harness, [
            "included_segments": ["Subscribed Users"], "send_after": .double(harness.app.services.now() + 3600),
        ], app: other))
        let id = try Self.messageID(await Self.send(harness, ["include_external_user_ids": ["user-1"], "ios_badgeType": "Increase",
                                                             "ios_badgeCount": 2]))
        #expect(try await Self.stored(harness, id) == Stored(expansion: "done", audienceTotal: 1, jobs: 1, recipients: 1))
        let job = try await harness.app.services.database.query("""
            SELECT subscription_ids, badges, (SELECT badge_count FROM subscriptions WHERE id = \(mine)) AS counter
            FROM delivery_jobs WHERE message_id = \(id)
            """)[0]
        #expect(try job.decode("subscription_ids", as: [String].self) == [mine])
        #expect(try job.decode("badges", as: [Int].self) == [2])
        #expect(try job.decode("counter", as: Int.self) == 2)
        // One turn of a worker delivers it: there is nothing to expand first.
        #expect(try await harness.engine.runOnce() == 1)
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Self.token("a1")])
        #expect(try await Self.stored(harness, scheduled) == Stored(expansion: "pending", audienceTotal: 0, jobs: 0, recipients: 0))
    }

    @Test func segmentsScheduledAndThrottledSendsStillExpandOnTheWorker() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token("c1"), externalID: "user-1")
        let later = harness.app.services.now() + 3600
        let waiting: [JSONObject] = [
            ["included_segments": ["Subscribed Users"]],
            ["include_external_user_ids": ["user-1"], "send_after": .double(later)],
            ["include_external_user_ids": ["user-1"], "throttle_rate_per_minute": 10],
            ["include_external_user_ids": ["user-1"], "delayed_option": "last-active"],
        ]
        for fields in waiting {
            let id = try Self.messageID(await Self.send(harness, fields))
            #expect(try await Self.stored(harness, id) == Stored(expansion: "pending", audienceTotal: 0, jobs: 0, recipients: 0),
                    "\(fields)")
        }
    }

    @Test func anEmptyNamedAudienceStoresNothingAndReplaysTheSameAnswer() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token("d1"), externalID: "user-1")
        let nobody: JSONValue = ["id": "", "errors": ["All included players are not subscribed"]]
        let key: HTTPHeaders = ["Idempotency-Key": "empty-1"]
        let first = await Self.send(harness, ["include_external_user_ids": ["nobody"]], headers: key)
        #expect(first.status == 200 && first.json == nobody, "\(first.text)")
        let again = await Self.send(harness, ["include_external_user_ids": ["nobody"]], headers: key)
        #expect(again.status == 200 && again.json == nobody, "\(again.text)")
        #expect(again.headers["Idempotent-Replayed"] == "true")
        let conflict = await Self.send(harness, ["include_external_user_ids": ["user-1"]], headers: key)
        #expect(conflict.status == 409, "\(conflict.text)")
        let counts = try await harness.app.services.database.query("""
            SELECT (SELECT count(*)::int FROM messages) AS messages, (SELECT count(*)::int FROM delivery_jobs) AS jobs
            """)[0]
        #expect(try counts.decode("messages", as: Int.self) == 0)
        #expect(try counts.decode("jobs", as: Int.self) == 0)
    }

    @Test func aSendExpandedWithItIsCancelledAndCompletesOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token("e1"), externalID: "user-1")
        let id = try Self.messageID(await Self.send(harness, ["include_external_user_ids": ["user-1"]]))
        let cancelled = await harness.app.request(.delete, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                                  query: ["app_id": harness.created.app.id])
        #expect(cancelled.status == 200, "\(cancelled.text)")
        #expect(try await Self.stored(harness, id).jobs == 0)
        #expect(try await harness.drain() == 0)
        #expect(harness.simulator.accepted().isEmpty)
        let row = try await harness.app.services.database.query("""
            SELECT cancelled_at IS NOT NULL AS cancelled, completed_event_at IS NOT NULL AS completed,
                   (SELECT count(*)::int FROM events WHERE type = \(EventType.notificationCompleted.rawValue)) AS completions
            FROM messages WHERE id = \(id)
            """)[0]
        #expect(try row.decode("cancelled", as: Bool.self))
        #expect(try row.decode("completed", as: Bool.self))
        #expect(try row.decode("completions", as: Int.self) == 1)
    }

    @Test func concurrentRepeatsOfOneKeyQueueOneMessageAndReplayItsAnswer() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.token("f1"), externalID: "user-1")
        let responses = await withTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await Self.send(harness, ["include_external_user_ids": ["user-1"]], headers: ["Idempotency-Key": "repeat-1"])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let ids = Set(responses.compactMap { $0.json?.objectValue?["id"]?.stringValue })
        #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map(\.text))")
        #expect(ids.count == 1)
        #expect(responses.filter { $0.headers["Idempotent-Replayed"] == "true" }.count == 7)
        let id = try #require(ids.first)
        #expect(try await Self.stored(harness, id) == Stored(expansion: "done", audienceTotal: 1, jobs: 1, recipients: 1))
        let messages: Int = try await harness.app.services.database.query("SELECT count(*)::int AS n FROM messages")[0].decode("n")
        #expect(messages == 1)
    }

    /// An immediate send wakes the workers on the jobs channel, which leaves the expansion step
    /// alone (nothing of it waits to be expanded); a send the workers expand wakes them on the
    /// delivery channel, as before.
    @Test func anImmediateSendWakesTheWorkersOnTheJobsChannel() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.token("c1"), externalID: "user-1")
        let listener = PostgresListener(conninfo: harness.app.services.databaseConninfo,
                                        channels: [MessageStore.deliveryChannel, MessageStore.jobsChannel])
        defer { listener.stop() }
        let deadline = ContinuousClock.now + .seconds(120)
        while try await harness.app.services.database.query("""
            SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %openpush_jobs%'
            """).isEmpty {
            try #require(ContinuousClock.now < deadline, "the listener did not LISTEN")
            try await Task.sleep(for: .milliseconds(20))
        }
        var received = listener.notifications.makeAsyncIterator()
        _ = try Self.messageID(await Self.send(harness, ["include_aliases": ["external_id": ["user-1"]], "target_channel": "push"]))
        #expect(await received.next() == PostgresNotification(channel: MessageStore.jobsChannel, payload: appID))
        _ = try Self.messageID(await Self.send(harness, ["included_segments": ["Subscribed Users"]]))
        #expect(await received.next() == PostgresNotification(channel: MessageStore.deliveryChannel, payload: appID))
    }
}
