import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

@Suite struct SegmentsRoutesTests {
    static let english: JSONValue = [["field": "language", "relation": "=", "value": "en"]]

    func path(_ app: CreatedApp) -> String { "/apps/\(app.app.id)/segments" }

    @discardableResult
    func createSegment(_ name: String, in created: CreatedApp, on app: TestApp) async throws -> String {
        let response = await app.request(.post, path(created), headers: .restKey(created.restKey),
                                         json: ["name": .string(name), "filters": Self.english])
        #expect(response.status == 201)
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    static let builtInNames = ["Subscribed Users", "All", "Active Users", "Inactive Users"]

    func names(_ response: TestResponse) -> [String] {
        (response.json?.objectValue?["segments"]?.arrayValue ?? []).compactMap { $0.objectValue?["name"]?.stringValue }
    }

    @Test func createAnswers201WithALowerCaseUUIDAndTheListShowsIt() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let response = await app.request(.post, path(created), headers: .restKey(created.restKey), json: [
            "name": "Power users",
            "filters": [["field": "session_count", "relation": ">", "value": 10], ["operator": "OR"],
                        ["field": "tag", "key": "plan", "op": "=", "value": "pro"]],
        ])
        #expect(response.status == 201)
        let id = try #require(response.json?.objectValue?["id"]?.stringValue)
        #expect(response.json == ["success": true, "id": .string(id)])
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())

        let list = await app.request(.get, path(created), headers: .restKey(created.restKey))
        #expect(list.status == 200)
        let body = try #require(list.json?.objectValue)
        #expect(body["total_count"] == 5 && body["offset"] == 0 && body["limit"] == 300)
        let segments = (body["segments"]?.arrayValue ?? []).compactMap(\.objectValue)
        try #require(segments.count == 5)
        for (segment, builtIn) in zip(segments, BuiltInSegment.allCases) {
            #expect(segment["id"] == .string(builtIn.id(appID: created.app.id)))
            #expect(segment["name"] == .string(builtIn.name) && segment["app_id"] == .string(created.app.id))
            #expect(segment["built_in"] == true && segment["read_only"] == true && segment["is_active"] == true)
        }
        let saved = segments[4]
        #expect(saved["id"] == .string(id) && saved["name"] == "Power users")
        #expect(saved["app_id"] == .string(created.app.id))
        #expect(saved["built_in"] == false && saved["read_only"] == false && saved["is_active"] == true)
        let createdAt = try #require(saved["created_at"]?.stringValue)
        #expect(try Date(createdAt, strategy: .iso8601).timeIntervalSinceNow.magnitude < 60)
        #expect(saved["updated_at"] == saved["created_at"])
    }

    @Test func eachBuiltInSegmentHasAStableUUIDPerApp() throws {
        // `Subscribed Users` keeps the id it had before the other built-ins existed.
        #expect(BuiltInSegment.subscribedUsers.id(appID: "app_one") == "eeb67e96-ed06-8ef4-97b3-b424ec1b9888")
        var seen: Set<String> = []
        for builtIn in BuiltInSegment.allCases {
            let first = builtIn.id(appID: "app_one")
            #expect(first == builtIn.id(appID: "app_one"))
            #expect(first != builtIn.id(appID: "app_two"))
            #expect(UUID(uuidString: first) != nil && first == first.lowercased())
            #expect(BuiltInSegment(id: first, appID: "app_one") == builtIn)
            #expect(BuiltInSegment(id: first, appID: "app_two") == nil)
            seen.insert(first)
        }
        #expect(seen.count == BuiltInSegment.allCases.count)
    }

    @Test func aBadBodyNamesEveryProblem() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let headers = HTTPHeaders.restKey(created.restKey)
        let empty = await app.request(.post, path(created), headers: headers, json: [:])
        #expect(empty.status == 400)
        #expect(empty.json == ["errors": ["name is required", "filters is required"]])

        let bad = await app.request(.post, path(created), headers: headers, json: [
            "name": .string(String(repeating: "n", count: 129)),
            "filters": [["field": "tag", "relation": "=", "value": "x"], ["field": "colour", "relation": "="],
                        ["field": "session_count", "relation": ">", "value": "many"]],
            "colour": "red",
        ])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": [
            "name must be 128 characters or fewer",
            "filters[0]: tag filters need a key",
            "filters[1]: unknown field 'colour'",
            "filters[2]: relation '>' needs a numeric value",
            "unknown field 'colour'",
        ]])

        let tooMany = await app.request(.post, path(created), headers: headers, json: [
            "name": "Big", "filters": .array(Array(repeating: ["field": "language", "relation": "exists"], count: 201)),
        ])
        #expect(tooMany.json == ["errors": ["filters: at most 200 entries"]])

        let notObject = await app.request(.post, path(created), headers: headers, json: ["a", "b"])
        #expect(notObject.status == 400)
        #expect(notObject.json == ["errors": ["the request body must be a JSON object"]])
        // Nothing was stored.
        #expect(names(await app.request(.get, path(created), headers: headers)) == Self.builtInNames)
    }

    @Test func aNameTakenInTheAppIs409() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        try await createSegment("English", in: first, on: app)
        for name in ["English"] + Self.builtInNames {
            let again = await app.request(.post, path(first), headers: .restKey(first.restKey),
                                          json: ["name": .string(name), "filters": Self.english])
            #expect(again.status == 409)
            #expect(again.json == ["errors": [.string("a segment named '\(name)' already exists")]])
        }
        // Names are per app.
        try await createSegment("English", in: second, on: app)
    }

    @Test func limitAndOffsetPageThroughBuiltInThenSavedSegments() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let headers = HTTPHeaders.restKey(created.restKey)
        for name in ["A", "B", "C"] { try await createSegment(name, in: created, on: app) }

        let firstPage = await app.request(.get, path(created), headers: headers, query: ["limit": "3"])
        #expect(names(firstPage) == ["Subscribed Users", "All", "Active Users"])
        #expect(firstPage.json?.objectValue?["total_count"] == 7 && firstPage.json?.objectValue?["limit"] == 3)
        let secondPage = await app.request(.get, path(created), headers: headers, query: ["limit": "3", "offset": "3"])
        #expect(names(secondPage) == ["Inactive Users", "A", "B"])
        #expect(secondPage.json?.objectValue?["offset"] == 3)
        let thirdPage = await app.request(.get, path(created), headers: headers, query: ["limit": "3", "offset": "6"])
        #expect(names(thirdPage) == ["C"])
        #expect(names(await app.request(.get, path(created), headers: headers, query: ["limit": "1", "offset": "4"])) == ["A"])
        #expect(names(await app.request(.get, path(created), headers: headers, query: ["limit": "1", "offset": "2"])) == ["Active Users"])
        #expect(names(await app.request(.get, path(created), headers: headers, query: ["offset": "9"])) == [])

        let bad = await app.request(.get, path(created), headers: headers, query: ["limit": "0", "offset": "-1"])
        #expect(bad.status == 400)
        #expect(bad.json == ["errors": ["limit must be an integer from 1 to 300", "offset must be an integer from 0 to 2147483647"]])
        #expect(await app.request(.get, path(created), headers: headers, query: ["limit": "301"]).status == 400)
    }

    @Test func deleteRemovesASavedSegmentOnly() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let headers = HTTPHeaders.restKey(created.restKey)
        let id = try await createSegment("English", in: created, on: app)

        let deleted = await app.request(.delete, "\(path(created))/\(id)", headers: headers)
        #expect(deleted.status == 200)
        #expect(deleted.json == ["success": true])
        #expect(names(await app.request(.get, path(created), headers: headers)) == Self.builtInNames)

        let again = await app.request(.delete, "\(path(created))/\(id)", headers: headers)
        #expect(again.status == 404)
        #expect(again.json == ["errors": [.string("segment '\(id)' not found")]])

        for builtIn in BuiltInSegment.allCases {
            let refused = await app.request(.delete, "\(path(created))/\(builtIn.id(appID: created.app.id))", headers: headers)
            #expect(refused.status == 400)
            #expect(refused.json == ["errors": [.string("the built-in segment '\(builtIn.name)' cannot be deleted")]])
        }
        #expect(names(await app.request(.get, path(created), headers: headers)) == Self.builtInNames)
        // The name is free again.
        try await createSegment("English", in: created, on: app)
    }

    @Test func missingKeyIs401AndUnknownAppIs404() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let badKey: JSONValue = ["errors": [.string(Authentication.badRESTKey)]]
        #expect(await app.request(.get, path(created)).json == badKey)
        let post = await app.request(.post, path(created), json: ["name": "x", "filters": Self.english])
        #expect(post.status == 401 && post.json == badKey)
        #expect(await app.request(.delete, "\(path(created))/x").status == 401)
        for (method, route) in [(HTTPMethod.get, "/apps/app_nothere/segments"), (.delete, "/apps/app_nothere/segments/x")] {
            let unknown = await app.request(method, route, headers: .restKey(created.restKey))
            #expect(unknown.status == 404)
            #expect(unknown.json == ["errors": ["unknown app 'app_nothere'"]])
        }
    }

    @Test func anotherAppsKeyNeverReachesTheseSegments() async throws {
        let app = try await TestApp.make()
        let owner = try await app.createApp()
        let intruder = try await app.createApp()
        let id = try await createSegment("English", in: owner, on: app)
        let intruderKey = HTTPHeaders.restKey(intruder.restKey)
        let badKey: JSONValue = ["errors": [.string(Authentication.badRESTKey)]]

        // Another app's key on this app's routes: 401, never data.
        let list = await app.request(.get, path(owner), headers: intruderKey)
        #expect(list.status == 401 && list.json == badKey)
        let create = await app.request(.post, path(owner), headers: intruderKey, json: ["name": "Mine", "filters": Self.english])
        #expect(create.status == 401 && create.json == badKey)
        let delete = await app.request(.delete, "\(path(owner))/\(id)", headers: intruderKey)
        #expect(delete.status == 401 && delete.json == badKey)

        // This app's segment id through the other app's path and key: not found there.
        let crossed = await app.request(.delete, "\(path(intruder))/\(id)", headers: intruderKey)
        #expect(crossed.status == 404)
        #expect(crossed.json == ["errors": [.string("segment '\(id)' not found")]])
        #expect(names(await app.request(.get, path(intruder), headers: intruderKey)) == Self.builtInNames)
        #expect(names(await app.request(.get, path(owner), headers: .restKey(owner.restKey))) == Self.builtInNames + ["English"])
    }
}
