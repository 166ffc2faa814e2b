import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// `GET` and `PATCH /apps/{app_id}/segments/{segment_id}` (OneSignal's get_segment and
/// update_segment).
@Suite struct SegmentDetailRoutesTests {
    static let level: JSONValue = [["field": "tag", "key": "level", "relation": ">", "value": "10"]]

    func path(_ created: CreatedApp, _ id: String) -> String { "/apps/\(created.app.id)/segments/\(id)" }

    @discardableResult
    func create(_ app: TestApp, _ created: CreatedApp, _ name: String, filters: JSONValue = level) async throws -> String {
        let response = await app.request(.post, "/apps/\(created.app.id)/segments", headers: .restKey(created.restKey),
                                         json: ["name": .string(name), "filters": filters])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "create: \(response.text)")
    }

    @Test func getShowsTheFiltersAndTheDevicesASendReaches() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await create(app, created, "Level 10")
        for (index, level) in ["5", "12", "30"].enumerated() {
            let subscription = try await app.insertSubscription(appID: created.app.id, token: String(repeating: "e\(index)", count: 32))
            try await app.seed("UPDATE subscriptions SET tags = jsonb_build_object('level', \(level)::text) WHERE id = \(subscription)")
        }
        let response = await app.request(.get, path(created, id), headers: .restKey(created.restKey))
        #expect(response.status == 200)
        let body = try #require(response.json?.objectValue)
        #expect(body["subscriber_count"] == 2)
        let payload = try #require(body["payload"]?.objectValue)
        #expect(payload["id"] == .string(id) && payload["name"] == "Level 10" && payload["source"] == "custom")
        #expect(payload["filters"] == Self.level)
        #expect(payload["created_at"]?.intValue != nil && payload["description"] == nil)

        let builtIn = BuiltInSegment.subscribedUsers.id(appID: created.app.id)
        let all = await app.request(.get, path(created, builtIn), headers: .restKey(created.restKey))
        #expect(all.json?.objectValue?["subscriber_count"] == 3)
        #expect(all.json?.objectValue?["payload"]?.objectValue?["source"] == "default")
        #expect(all.json?.objectValue?["payload"]?.objectValue?["filters"] == [])
    }

    @Test func patchChangesNameFiltersAndDescription() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await create(app, created, "Level 10")
        try await create(app, created, "Taken")
        let headers = HTTPHeaders.restKey(created.restKey)
        let filters: JSONValue = [["field": "language", "relation": "=", "value": "fr"]]
        let changed = await app.request(.patch, path(created, id), headers: headers,
                                        json: ["name": "French", "description": "Speaks French", "filters": filters])
        #expect(changed.status == 200)
        #expect(changed.json == ["success": true, "id": .string(id)])
        let payload = await app.request(.get, path(created, id), headers: headers).json?.objectValue?["payload"]?.objectValue
        #expect(payload?["name"] == "French" && payload?["description"] == "Speaks French" && payload?["filters"] == filters)
        // A send can now target it by its new name.
        let send = await app.request(.post, "/notifications/count-unsaved", headers: headers,
                                     json: ["app_id": .string(created.app.id), "included_segments": ["French"]])
        #expect(send.status == 200)
        // The list shows when it changed.
        let list = await app.request(.get, "/apps/\(created.app.id)/segments", headers: headers)
        let saved = list.json?.objectValue?["segments"]?.arrayValue?.compactMap(\.objectValue).first { $0["id"] == .string(id) }
        #expect(saved?["name"] == "French" && saved?["updated_at"]?.stringValue != nil)

        let taken = await app.request(.patch, path(created, id), headers: headers, json: ["name": "Taken"])
        #expect(taken.status == 409)
        #expect(taken.json == ["errors": ["a segment named 'Taken' already exists"]])
        let builtInName = await app.request(.patch, path(created, id), headers: headers, json: ["name": "All"])
        #expect(builtInName.status == 409)
        let bad = await app.request(.patch, path(created, id), headers: headers,
                                    json: ["filters": [["field": "colour", "relation": "="]], "size": 1])
        #expect(bad.json == ["errors": ["filters[0]: unknown field 'colour'", "unknown field 'size'"]])
        let empty = await app.request(.patch, path(created, id), headers: headers, json: [:])
        #expect(empty.json == ["errors": ["give at least one of name, filters, description"]])
    }

    @Test func builtInSegmentsCannotChangeAndOtherAppsSegmentsAreNotFound() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        let id = try await create(app, first, "Level 10")
        for builtIn in BuiltInSegment.allCases {
            let response = await app.request(.patch, path(first, builtIn.id(appID: first.app.id)), headers: .restKey(first.restKey),
                                             json: ["name": "Mine"])
            #expect(response.status == 400)
            #expect(response.json == ["errors": .array([.string("the built-in segment '\(builtIn.name)' cannot be changed")])])
        }
        // The first app's segment through the second app: not found, and unchanged.
        let read = await app.request(.get, path(second, id), headers: .restKey(second.restKey))
        #expect(read.status == 404)
        #expect(read.json == ["errors": .array([.string("segment '\(id)' not found")])])
        let patched = await app.request(.patch, path(second, id), headers: .restKey(second.restKey), json: ["name": "Stolen"])
        #expect(patched.status == 404)
        // The second app's key on the first app's path.
        #expect(await app.request(.get, path(first, id), headers: .restKey(second.restKey)).status == 401)
        #expect(await app.request(.patch, path(first, id), headers: .restKey(second.restKey), json: ["name": "X"]).status == 401)
        let payload = await app.request(.get, path(first, id), headers: .restKey(first.restKey)).json?.objectValue?["payload"]
        #expect(payload?.objectValue?["name"] == "Level 10")
    }
}
