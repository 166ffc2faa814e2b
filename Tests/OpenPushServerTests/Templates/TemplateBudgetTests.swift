import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Issue 37, item 1: a template over its Liquid budget is refused when its cost shows without a
/// recipient, and a recipient whose rendering exhausts it is recorded `TemplateBudgetExceeded`
/// and not sent to, while the rest of the job goes out.
@Suite struct TemplateBudgetTests {
    /// Cheap without a recipient; over budget for one whose `big` tag is 1,000 bytes.
    static let perRecipient = #"Hi{% for i in (1..2000) %}{% if big contains "z" %}!{% endif %}{% endfor %}"#
    /// Over budget whoever renders it.
    static let hostile = "{% for i in (1..100000000) %}{% endfor %}"

    static func error(_ field: String) -> JSONValue {
        ["errors": [.string("\(field): \(LiquidError.overBudget.message)")]]
    }

    @Test func aRecipientOverBudgetIsAFailureAndTheRestOfTheJobIsSent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let heavy = try await harness.app.insertSubscription(appID: appID, token: NotificationRoutesTests.token(0))
        let light = try await harness.app.insertSubscription(appID: appID, token: NotificationRoutesTests.token(1))
        let big = String(repeating: "a", count: 1000)
        try await harness.app.services.database.query("""
            UPDATE subscriptions SET tags = jsonb_build_object('big', \(big)::text) WHERE id = \(heavy)
            """)
        let response = await NotificationRoutesTests.post(harness, [
            "included_segments": ["Subscribed Users"], "contents": ["en": .string(Self.perRecipient)],
        ])
        #expect(response.status == 200, "\(response.text)")
        let messageID = try #require(response.json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [NotificationRoutesTests.token(1)])
        let records = try NotificationDeliveriesTests.records(await NotificationDeliveriesTests.deliveries(harness, messageID))
        let byDevice = Dictionary(uniqueKeysWithValues: records.map { ($0["subscription_id"]?.stringValue ?? "", $0) })
        #expect(byDevice[heavy]?["state"] == "error")
        #expect(byDevice[heavy]?["error_reason"] == "TemplateBudgetExceeded")
        #expect(byDevice[heavy]?["attempts"] == 1)
        #expect(byDevice[light]?["state"] == "accepted")
        // Final: nothing of it waits for a retry.
        #expect(try await NotificationRoutesTests.count(harness, """
            SELECT count(*)::int AS n FROM delivery_jobs WHERE message_id = \(messageID)
            """) == 0)
    }

    @Test func aTemplateOverBudgetWithoutARecipientIsRefusedWhenCreatedUpdatedOrSent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let headers = HTTPHeaders.restKey(harness.created.restKey)
        // Templates: create and update.
        let refused = await harness.app.request(.post, "/templates", headers: headers, json: [
            "app_id": .string(appID), "name": "Heavy", "contents": ["en": .string(Self.hostile)],
        ])
        #expect(refused.status == 400)
        #expect(refused.json == Self.error("contents.en"))
        let created = await harness.app.request(.post, "/templates", headers: headers, json: [
            "app_id": .string(appID), "name": "Fine", "contents": ["en": .string(Self.perRecipient)],
        ])
        #expect(created.status == 200, "\(created.text)")
        let templateID = try #require(created.json?.objectValue?["id"]?.stringValue)
        var json = headers
        json.add(name: "Content-Type", value: "application/json")
        let changes: JSONValue = ["headings": ["en": "Hello", "fr": .string(Self.hostile)]]
        let changed = await harness.app.request(.patch, "/templates/\(templateID)", headers: json, body: changes.serializedBytes,
                                                query: ["app_id": appID])
        #expect(changed.status == 400)
        #expect(changed.json == Self.error("headings.fr"))
        // Notifications: inline contents, headings and privacy_text.
        try await harness.app.insertSubscription(appID: appID, token: NotificationRoutesTests.token(0))
        for field in ["contents", "headings"] {
            var body: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]]
            body[field] = ["en": .string(Self.hostile)]
            let sent = await NotificationRoutesTests.post(harness, body)
            #expect(sent.status == 400, "\(field)")
            #expect(sent.json == Self.error("\(field).en"))
        }
        let privacy = await NotificationRoutesTests.post(harness, [
            "included_segments": ["Subscribed Users"], "contents": ["en": "x"], "privacy_text": .string(Self.hostile),
        ])
        #expect(privacy.json == ["errors": [.string("privacy_text: \(LiquidError.overBudget.message)")]])
        // A Live Activity update renders Liquid per recipient too.
        let update = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-1/notifications", headers: headers,
                                               json: ["event": "update", "name": "n", "event_updates": ["home": 1],
                                                      "headings": ["en": .string(Self.hostile)], "contents": ["en": "x"]])
        #expect(update.status == 400)
        #expect(update.json == Self.error("headings.en"))
        #expect(try await NotificationRoutesTests.count(harness, "SELECT count(*)::int AS n FROM messages") == 0)
        // The template that is fine without a recipient is accepted and sent.
        let fine = await NotificationRoutesTests.post(harness, ["included_segments": ["Subscribed Users"],
                                                               "template_id": .string(templateID)])
        #expect(fine.status == 200, "\(fine.text)")
    }
}
