import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// OneSignal's template routes: REST key, `app_id` in the body of the create and in the query of
/// the others, OneSignal's shapes, and every error in `{"errors": […]}`.
@Suite struct TemplatesRoutesTests {
    static let shipped: JSONObject = [
        "name": "Shipped", "headings": ["en": "Order {{ message.custom_data.order_id }}"],
        "contents": ["en": "Hi {{ first_name | default: 'there' }}", "pt": "Olá"], "data": ["screen": "orders"],
        "ios_sound": "ship.caf", "ios_attachments": ["id1": "https://example.com/a.jpg"],
        "buttons": [["id": "track", "text": "Track"]],
    ]

    /// A request with a JSON body and a query, as the templates' PATCH takes.
    static func send(_ app: TestApp, _ method: HTTPMethod, _ path: String, key: String, query: [String: String] = [:],
                     json: JSONValue? = nil) async -> TestResponse {
        var headers = HTTPHeaders.restKey(key)
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        return await app.request(method, path, headers: headers, body: json?.serializedBytes ?? [], query: query)
    }

    static func create(_ app: TestApp, _ created: CreatedApp, _ fields: JSONObject = shipped) async throws -> JSONObject {
        var body: JSONObject = ["app_id": .string(created.app.id)]
        for (key, value) in fields { body[key] = value }
        let response = await send(app, .post, "/templates", key: created.restKey, json: .object(body))
        try #require(response.status == 200, "create: \(response.text)")
        return try #require(response.json?.objectValue)
    }

    static func errors(_ messages: String...) -> JSONValue { ["errors": .array(messages.map { .string($0) })] }

    @Test func createViewListChangeAndDeleteInOneSignalsShapes() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let appID = created.app.id
        let template = try await Self.create(app, created)
        let id = try #require(template["id"]?.stringValue)
        #expect(Identifier.isWellFormed(id, prefix: "tpl"))
        #expect(template["name"] == "Shipped")
        #expect(template["channel"] == "push")
        #expect(template["created_at"] == template["updated_at"])
        #expect(template["content"] == [
            "isIos": true, "headings": Self.shipped["headings"]!, "subtitle": nil, "contents": Self.shipped["contents"]!,
            "data": ["screen": "orders"], "ios_sound": "ship.caf", "ios_category": nil,
            "ios_attachments": Self.shipped["ios_attachments"]!, "buttons": Self.shipped["buttons"]!,
        ])

        let viewed = await Self.send(app, .get, "/templates/\(id)", key: created.restKey, query: ["app_id": appID])
        #expect(viewed.status == 200)
        #expect(viewed.json == .object(template))

        let list = await Self.send(app, .get, "/templates", key: created.restKey, query: ["app_id": appID])
        #expect(list.json == ["total_count": 1, "offset": 0, "limit": 50, "templates": [[
            "id": .string(id), "name": "Shipped", "channel": "push", "created_at": template["created_at"]!,
            "updated_at": template["updated_at"]!,
        ]]])

        let changed = await Self.send(app, .patch, "/templates/\(id)", key: created.restKey, query: ["app_id": appID],
                                      json: ["name": "Delivered", "ios_sound": nil, "subtitle": ["en": "Today"],
                                             "contents": ["en": "Here"]])
        #expect(changed.status == 200, "\(changed.text)")
        let content = try #require(changed.json?.objectValue?["content"]?.objectValue)
        #expect(changed.json?.objectValue?["name"] == "Delivered")
        #expect(content["ios_sound"] == .null)
        #expect(content["subtitle"] == ["en": "Today"])
        #expect(content["contents"] == ["en": "Here"])
        #expect(content["headings"] == Self.shipped["headings"])
        #expect(content["buttons"] == Self.shipped["buttons"])
        let again = await Self.send(app, .get, "/templates/\(id)", key: created.restKey, query: ["app_id": appID])
        #expect(again.json == changed.json)

        let deleted = await Self.send(app, .delete, "/templates/\(id)", key: created.restKey, query: ["app_id": appID])
        #expect(deleted.status == 200)
        #expect(deleted.json == ["success": true])
        for method in [HTTPMethod.get, .delete] {
            let gone = await Self.send(app, method, "/templates/\(id)", key: created.restKey, query: ["app_id": appID])
            #expect(gone.status == 404)
            #expect(gone.json == Self.errors("template '\(id)' not found"))
        }
        let patchGone = await Self.send(app, .patch, "/templates/\(id)", key: created.restKey, query: ["app_id": appID],
                                        json: ["name": "x"])
        #expect(patchGone.status == 404)
        #expect(patchGone.json == Self.errors("template '\(id)' not found"))
    }

    @Test func appIDWhereOneSignalPassesItAndTheKeysOfThatAppOnly() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let other = try await app.createApp()
        let id = try #require(try await Self.create(app, created)["id"]?.stringValue)
        let ours = try #require(try await Self.create(app, other)["id"]?.stringValue)
        let routes: [(HTTPMethod, String, JSONValue?)] = [
            (.get, "/templates", nil), (.get, "/templates/\(id)", nil), (.patch, "/templates/\(id)", ["name": "x"]),
            (.delete, "/templates/\(id)", nil),
        ]
        for (method, path, body) in routes {
            let missing = await Self.send(app, method, path, key: created.restKey, json: body)
            #expect(missing.status == 400, "\(method) \(path)")
            #expect(missing.json == Self.errors("app_id is required"))
            let unknown = await Self.send(app, method, path, key: created.restKey, query: ["app_id": "app_nope"], json: body)
            #expect(unknown.status == 404)
            #expect(unknown.json == Self.errors("unknown app 'app_nope'"))
            // Another app's key, as on every REST route: 401, never its data.
            for key in [other.restKey, "wrong"] {
                let refused = await Self.send(app, method, path, key: key, query: ["app_id": created.app.id], json: body)
                #expect(refused.status == 401, "\(method) \(path)")
                #expect(refused.json == Self.errors(Authentication.badRESTKey))
            }
        }
        // Another app's template, addressed with this app's id and key, does not exist here.
        for (method, body) in [(HTTPMethod.get, nil), (.patch, ["name": "x"] as JSONValue?), (.delete, nil)] {
            let foreign = await Self.send(app, method, "/templates/\(ours)", key: created.restKey,
                                          query: ["app_id": created.app.id], json: body)
            #expect(foreign.status == 404, "\(method)")
            #expect(foreign.json == Self.errors("template '\(ours)' not found"))
        }
        let viewOther = await Self.send(app, .get, "/templates/\(ours)", key: other.restKey, query: ["app_id": other.app.id])
        #expect(viewOther.json?.objectValue?["name"] == "Shipped")

        for body: JSONValue in [["name": "n", "contents": ["en": "x"]], ["app_id": 5, "name": "n", "contents": ["en": "x"]]] {
            let noApp = await Self.send(app, .post, "/templates", key: created.restKey, json: body)
            #expect(noApp.status == 400)
            #expect(noApp.json == Self.errors("app_id is required"))
        }
        let wrongKey = await Self.send(app, .post, "/templates", key: other.restKey,
                                       json: ["app_id": .string(created.app.id), "name": "n", "contents": ["en": "x"]])
        #expect(wrongKey.status == 401)
        #expect(wrongKey.json == Self.errors(Authentication.badRESTKey))
        let mismatch = await Self.send(app, .patch, "/templates/\(id)", key: created.restKey, query: ["app_id": created.app.id],
                                       json: ["app_id": .string(other.app.id), "name": "x"])
        #expect(mismatch.status == 400)
        #expect(mismatch.json == Self.errors("app_id in the body must be the app_id of the query"))
    }

    @Test func badFieldsAreNamedAndNothingIsStored() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let appID = JSONValue.string(created.app.id)
        let badLiquid = await Self.send(app, .post, "/templates", key: created.restKey, json: [
            "app_id": appID, "name": "n", "contents": ["en": "Hi {% if vip %}friend"], "subtitle": ["en": "{{ x | nope }}"],
        ])
        #expect(badLiquid.status == 400)
        #expect(badLiquid.json == Self.errors("subtitle.en: unknown filter 'nope'", "contents.en: unclosed tag 'if'"))
        let badTypes = await Self.send(app, .post, "/templates", key: created.restKey, json: [
            "app_id": appID, "name": "n", "contents": "Hello", "data": [1], "ios_category": 7, "buttons": [["text": "t"]],
            "colour": "red",
        ])
        #expect(badTypes.status == 400)
        #expect(badTypes.json == Self.errors("contents must be an object of strings, got string", "data must be an object, got array",
                                             "ios_category must be a string, got number", "buttons[0].id is required",
                                             "unknown field 'colour'"))
        let list = await Self.send(app, .get, "/templates", key: created.restKey, query: ["app_id": created.app.id])
        #expect(list.json?.objectValue?["total_count"] == 0)

        let id = try #require(try await Self.create(app, created)["id"]?.stringValue)
        let badUpdate = await Self.send(app, .patch, "/templates/\(id)", key: created.restKey, query: ["app_id": created.app.id],
                                        json: ["name": nil, "contents": ["en": "{{ unclosed"], "ios_sound": 1])
        #expect(badUpdate.status == 400)
        #expect(badUpdate.json == Self.errors(TemplateFields.Messages.nameRemoved, "contents.en: unterminated output '{{'",
                                              "ios_sound must be a string, got number"))
        let unchanged = await Self.send(app, .get, "/templates/\(id)", key: created.restKey, query: ["app_id": created.app.id])
        #expect(unchanged.json?.objectValue?["name"] == "Shipped")
        #expect(unchanged.json?.objectValue?["content"]?.objectValue?["ios_sound"] == "ship.caf")
    }

    @Test func emailAndSMSFieldsAreIgnoredAndNamed() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let response = await Self.send(app, .post, "/templates", key: created.restKey, json: [
            "app_id": .string(created.app.id), "name": "n", "contents": ["en": "x"], "isEmail": false,
            "email_subject": "s", "email_body": "<p>b</p>",
        ])
        #expect(response.status == 200)
        #expect(response.headers["OpenPush-Ignored-Fields"] == "email_body, email_subject")
        #expect(response.json?.objectValue?["content"]?.objectValue?["email_subject"] == nil)
        let email = await Self.send(app, .post, "/templates", key: created.restKey, json: [
            "app_id": .string(created.app.id), "name": "n", "contents": ["en": "x"], "isEmail": true,
        ])
        #expect(email.json == Self.errors("isEmail must be false: OpenPush templates are push templates"))
    }

    @Test func listsPageOldestFirst() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        var ids: [String] = []
        for index in 0..<5 {
            ids.append(try #require(try await Self.create(app, created, ["name": .string("t\(index)"), "contents": ["en": "x"]])["id"]?.stringValue))
        }
        func page(_ query: [String: String]) async -> TestResponse {
            var query = query
            query["app_id"] = created.app.id
            return await Self.send(app, .get, "/templates", key: created.restKey, query: query)
        }
        let second = await page(["limit": "2", "offset": "2"])
        #expect(second.json?.objectValue?["total_count"] == 5)
        #expect(second.json?.objectValue?["limit"] == 2)
        #expect(second.json?.objectValue?["offset"] == 2)
        #expect(second.json?.objectValue?["templates"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == Array(ids[2..<4]))
        let past = await page(["offset": "9"])
        #expect(past.json?.objectValue?["templates"] == [])
        #expect(past.json?.objectValue?["total_count"] == 5)
        let email = await page(["channel": "email"])
        #expect(email.json == ["total_count": 0, "offset": 0, "limit": 50, "templates": []])
        #expect(await page(["channel": "push"]).json?.objectValue?["total_count"] == 5)
        for (query, message) in [(["limit": "51"], "limit must be an integer from 1 to 50"),
                                 (["limit": "0"], "limit must be an integer from 1 to 50"),
                                 (["offset": "-1"], "offset must be an integer of 0 or more"),
                                 (["channel": "fax"], "channel must be one of: push, email, sms")] {
            let bad = await page(query)
            #expect(bad.status == 400, "\(query)")
            #expect(bad.json == Self.errors(message))
        }
    }

    /// A shared demo app's templates are the app's, as its segments are: every tenant reads them
    /// and sends with them; only the app's own keys change them.
    @Test func tenantsReadTheAppsTemplatesAndOnlyTheAppChangesThem() async throws {
        let demo = try await SharedDemo.make()
        let acme = try await demo.createTenant("Acme")
        let id = try #require(try await Self.create(demo.app, demo.shared)["id"]?.stringValue)
        let query = ["app_id": demo.appID]
        let listed = await Self.send(demo.app, .get, "/templates", key: acme.restKey, query: query)
        #expect(listed.json?.objectValue?["total_count"] == 1)
        #expect(await Self.send(demo.app, .get, "/templates/\(id)", key: acme.restKey, query: query).status == 200)
        let refusals: [(HTTPMethod, String, JSONValue?, String)] = [
            (.post, "/templates", ["app_id": .string(demo.appID), "name": "Mine", "contents": ["en": "x"]], "create"),
            (.patch, "/templates/\(id)", ["name": "Mine"], "change"),
            (.delete, "/templates/\(id)", nil, "delete"),
        ]
        for (method, path, body, verb) in refusals {
            let refused = await Self.send(demo.app, method, path, key: acme.restKey, query: method == .post ? [:] : query, json: body)
            #expect(refused.status == 403, "\(method)")
            #expect(refused.json == Self.errors("a tenant's key cannot \(verb) templates: they are shared by every tenant of this app"))
        }
        let kept = await Self.send(demo.app, .get, "/templates/\(id)", key: demo.shared.restKey, query: query)
        #expect(kept.json?.objectValue?["name"] == "Shipped")
        // A tenant sends with the app's template (to its own devices: none are linked yet).
        let plain = try #require(try await Self.create(demo.app, demo.shared, ["name": "Plain", "contents": ["en": "x"]])["id"])
        let sent = await Self.send(demo.app, .post, "/notifications", key: acme.restKey, json: [
            "app_id": .string(demo.appID), "template_id": plain, "included_segments": ["Subscribed Users"],
        ])
        #expect(sent.json == ["id": "", "errors": ["All included players are not subscribed"]])
    }
}
