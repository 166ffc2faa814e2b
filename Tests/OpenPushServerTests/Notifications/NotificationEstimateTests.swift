import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// `POST /notifications/count-unsaved`: the send's own audience, counted without storing
/// anything, with the send's validation and errors.
@Suite struct NotificationEstimateTests {
    static func estimate(_ app: TestApp, _ created: CreatedApp, _ body: JSONObject, restKey: String? = nil) async -> TestResponse {
        var body = body
        if body["app_id"] == nil { body["app_id"] = .string(created.app.id) }
        return await app.request(.post, "/notifications/count-unsaved", headers: .restKey(restKey ?? created.restKey),
                                 json: .object(body))
    }

    static func count(_ response: TestResponse) -> Int64? { response.json?.objectValue?["count"]?.intValue }

    static func messages(_ app: TestApp) async throws -> Int64 {
        try await app.services.database.query("SELECT count(*)::int8 AS n FROM messages")[0].decode("n")
    }

    @Test func countsWhatASendReachesInItsOwnAppAndStoresNothing() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        let ids = [
            try await app.insertSubscription(appID: first.app.id, token: String(repeating: "d1", count: 32), externalID: "u-1"),
            try await app.insertSubscription(appID: first.app.id, token: String(repeating: "d2", count: 32), externalID: "u-2"),
            try await app.insertSubscription(appID: first.app.id, token: String(repeating: "d3", count: 32)),
        ]
        // A dead token is not reached, as a send skips it.
        try await app.seed("UPDATE subscriptions SET token_invalid_at = now() WHERE id = \(ids[2])")
        let otherID = try await app.insertSubscription(appID: second.app.id, token: String(repeating: "d4", count: 32),
                                                       externalID: "u-1")

        let all = await Self.estimate(app, first, ["included_segments": ["Subscribed Users"]])
        #expect(all.status == 200)
        #expect(all.json == ["count": 2, "uncapped_count": 2, "cap_applied": false, "mobile_suppressed": false,
                             "mobile_excluded_count": 0])
        #expect(Self.count(await Self.estimate(app, first, ["include_external_user_ids": ["u-1"]])) == 1)
        #expect(Self.count(await Self.estimate(app, first, ["include_aliases": ["external_id": ["u-1", "u-2"]]])) == 2)
        #expect(Self.count(await Self.estimate(app, first, ["include_player_ids": [.string(ids[0]), .string(otherID)]])) == 1)
        #expect(Self.count(await Self.estimate(app, first, ["include_subscription_ids": [.string(otherID)]])) == 0)
        #expect(Self.count(await Self.estimate(app, first, ["filters": [["field": "language", "relation": "exists"]]])) == 0)
        #expect(Self.count(await Self.estimate(app, second, ["included_segments": ["All"]])) == 1)
        // A whole notification body is counted too, and `isIos: false` reaches nobody.
        #expect(Self.count(await Self.estimate(app, first, ["included_segments": ["All"], "contents": ["en": "Hi"]])) == 2)
        #expect(Self.count(await Self.estimate(app, first, ["included_segments": ["All"], "isIos": false])) == 0)
        #expect(try await Self.messages(app) == 0)
    }

    @Test func refusesWhatASendRefusesWithTheSameErrors() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        let bodies: [JSONObject] = [
            [:],
            ["included_segments": ["Level 99"]],
            ["included_segments": ["All"], "include_player_ids": ["x"]],
            ["excluded_segments": ["All"], "filters": []],
            ["included_segments": ["All"], "target_channel": "email"],
            ["included_segments": ["All"], "contents": ["en": 5]],
            ["included_segments": ["All"], "colour": "red"],
        ]
        for body in bodies {
            var send = body
            send["app_id"] = .string(first.app.id)
            if send["contents"] == nil { send["contents"] = ["en": "Hi"] }
            let sent = await app.request(.post, "/notifications", headers: .restKey(first.restKey), json: .object(send))
            let estimated = await Self.estimate(app, first, send)
            #expect(sent.status == 400 && estimated.status == 400, "\(body): \(sent.text) / \(estimated.text)")
            #expect(estimated.json == sent.json, "\(body)")
        }
        // Targeting alone, without contents: the targeting's own errors.
        let bare = await Self.estimate(app, first, ["included_segments": ["Level 99"]])
        #expect(bare.json == ["errors": ["segment 'Level 99' not found"]])
        let none = await Self.estimate(app, first, [:])
        #expect(none.json == ["errors": ["use exactly one targeting method"]])

        // Another app's key is 401; no app_id is 400.
        let wrongKey = await Self.estimate(app, first, ["included_segments": ["All"]], restKey: second.restKey)
        #expect(wrongKey.status == 401)
        let noApp = await app.request(.post, "/notifications/count-unsaved", headers: .restKey(first.restKey),
                                      json: ["included_segments": ["All"]])
        #expect(noApp.json == ["errors": ["app_id is required"]])
        #expect(try await Self.messages(app) == 0)
    }
}
