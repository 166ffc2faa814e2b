import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `template_id` and `custom_data` on `POST /notifications`, end to end against the APNs
/// simulator: the template fills what the request leaves out, the request wins, and Liquid
/// reads the send's `custom_data` as `message.custom_data`.
@Suite struct NotificationTemplatesTests {
    static func createTemplate(_ harness: DeliveryHarness, _ fields: JSONObject, app: CreatedApp? = nil) async throws -> String {
        let created = app ?? harness.created
        var body: JSONObject = ["app_id": .string(created.app.id)]
        for (key, value) in fields { body[key] = value }
        let response = await harness.app.request(.post, "/templates", headers: .restKey(created.restKey), json: .object(body))
        try #require(response.status == 200, "template: \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    static let template: JSONObject = [
        "name": "Shipped", "headings": ["en": "Order {{ message.custom_data.order.id }}"],
        "subtitle": ["en": "From the template"], "contents": ["en": "Template body"],
        "data": ["screen": "orders"], "ios_sound": "ship.caf", "ios_category": "ORDER",
    ]

    @Test func theTemplateFillsWhatTheRequestLeavesOutAndCustomDataIsRendered() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id,
                                                                    token: NotificationRoutesTests.token(0))
        try await harness.app.services.database.query("""
            UPDATE subscriptions SET tags = '{"first_name": "Ana"}'::jsonb WHERE id = \(subscription)
            """)
        let templateID = try await Self.createTemplate(harness, Self.template)
        let response = await NotificationRoutesTests.post(harness, [
            "template_id": .string(templateID), "include_subscription_ids": [.string(subscription)],
            "contents": ["en": "Hi {{ first_name }}, order {{ message.custom_data.order.id }} is on its way"],
            "data": nil, "ios_sound": "mine.caf", "custom_data": ["order": ["id": 42]],
        ])
        #expect(response.status == 200, "\(response.text)")
        let id = try #require(response.json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        let push = try #require(harness.simulator.accepted().first)
        #expect(push.payloadJSON == [
            "aps": ["alert": ["title": "Order 42", "subtitle": "From the template", "body": "Hi Ana, order 42 is on its way"],
                    "sound": "mine.caf", "category": "ORDER"],
            "screen": "orders",
        ])
        let view = await harness.app.request(.get, "/notifications/\(id)", headers: .restKey(harness.created.restKey),
                                             query: ["app_id": harness.created.app.id])
        let shown = try #require(view.json?.objectValue)
        #expect(shown["template_id"] == .string(templateID))
        #expect(shown["name"] == "Shipped")
        #expect(shown["headings"] == Self.template["headings"])
        #expect(shown["contents"] == ["en": "Hi {{ first_name }}, order {{ message.custom_data.order.id }} is on its way"])
        #expect(shown["data"] == ["screen": "orders"])
    }

    @Test func anUnknownOtherAppsOrDeletedTemplateIsA400NamingIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let subscription = try await harness.app.insertSubscription(appID: harness.created.app.id,
                                                                    token: NotificationRoutesTests.token(0))
        let other = try await harness.app.createApp()
        let othersTemplate = try await Self.createTemplate(harness, Self.template, app: other)
        let deleted = try await Self.createTemplate(harness, Self.template)
        let removal = await harness.app.request(.delete, "/templates/\(deleted)", headers: .restKey(harness.created.restKey),
                                                query: ["app_id": harness.created.app.id])
        #expect(removal.status == 200)
        for id in ["tpl_nope", othersTemplate, deleted] {
            let refused = await NotificationRoutesTests.post(harness, [
                "template_id": .string(id), "include_subscription_ids": [.string(subscription)],
            ])
            #expect(refused.status == 400, "\(id)")
            #expect(refused.json == ["errors": [.string("template_id '\(id)' not found: no template of this app has this id")]])
        }
        for (value, message) in [(JSONValue.int(5), "template_id must be a string, got number"),
                                 (.string(" "), "template_id must not be blank")] {
            let refused = await NotificationRoutesTests.post(harness, [
                "template_id": value, "include_subscription_ids": [.string(subscription)], "contents": ["en": "x"],
            ])
            #expect(refused.json == ["errors": [.string(message)]])
        }
        let badCustomData = await NotificationRoutesTests.post(harness, [
            "include_subscription_ids": [.string(subscription)], "contents": ["en": "x"], "custom_data": [1, 2],
        ])
        #expect(badCustomData.json == ["errors": ["custom_data must be an object, got array"]])
        #expect(try await NotificationRoutesTests.count(harness, "SELECT count(*)::int AS n FROM messages") == 0)
        // A null template_id is no template.
        let plain = await NotificationRoutesTests.post(harness, [
            "template_id": nil, "include_subscription_ids": [.string(subscription)], "contents": ["en": "x"],
        ])
        #expect(plain.status == 200)
    }

    /// The idempotency key answers for the request as sent: a repeat replays the first message
    /// even when the template changed in between.
    @Test func aRepeatWithTheSameKeyReplaysEvenAfterTheTemplateChanged() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: NotificationRoutesTests.token(0))
        let templateID = try await Self.createTemplate(harness, Self.template)
        let body: JSONObject = ["template_id": .string(templateID), "included_segments": ["Subscribed Users"]]
        let first = await NotificationRoutesTests.post(harness, body, key: "k-1")
        #expect(first.status == 200)
        let changed = await harness.app.request(.patch, "/templates/\(templateID)", headers: [
            "Authorization": "Key \(harness.created.restKey)", "Content-Type": "application/json",
        ], body: Array(#"{"contents": {"en": "Changed"}}"#.utf8), query: ["app_id": harness.created.app.id])
        #expect(changed.status == 200)
        let again = await NotificationRoutesTests.post(harness, body, key: "k-1")
        #expect(again.json == first.json)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        try await harness.drain()
        #expect(harness.simulator.accepted().map { $0.payloadJSON?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"] }
                == ["Template body"])
    }
}
