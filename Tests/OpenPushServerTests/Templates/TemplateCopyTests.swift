import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// OneSignal's `copy_template_to_app`: `POST /templates/{template_id}/copy_to_app?app_id=<source>`
/// with `{"target_app_id": …}` and the organization key makes a new template in the target app.
@Suite struct TemplateCopyTests {
    typealias Support = AppsTestSupport

    static func makeTemplate(_ app: TestApp, _ created: CreatedApp, name: String) async throws -> String {
        let response = await app.request(.post, "/templates", headers: .restKey(created.restKey), json: [
            "app_id": .string(created.app.id), "name": .string(name), "contents": ["en": "Hi {{ first_name }}"],
            "headings": ["en": "Hello"],
        ])
        return try #require(response.json?.objectValue?["id"]?.stringValue, "\(response.text)")
    }

    @Test func copiesIntoTheTargetAppAndLeavesTheSource() async throws {
        let app = try await Support.makeApp()
        let source = try await app.createApp()
        let target = try await app.createApp()
        let templateID = try await Self.makeTemplate(app, source, name: "Welcome")
        let response = await app.request(.post, "/templates/\(templateID)/copy_to_app", headers: Support.organization,
                                         body: JSONValue.object(["target_app_id": .string(target.app.id)]).serializedBytes,
                                         query: ["app_id": source.app.id])
        #expect(response.status == 200, "\(response.text)")
        let copy = try #require(response.json?.objectValue)
        let copyID = try #require(copy["id"]?.stringValue)
        #expect(copyID != templateID && copy["name"] == "Welcome")
        #expect(copy["content"]?.objectValue?["contents"] == ["en": "Hi {{ first_name }}"])
        // The target app reads it with its own key; the source still has its own.
        let viewed = await app.request(.get, "/templates/\(copyID)", headers: .restKey(target.restKey),
                                       query: ["app_id": target.app.id])
        #expect(viewed.status == 200 && viewed.json?.objectValue?["content"] == copy["content"])
        #expect(await app.request(.get, "/templates/\(copyID)", headers: .restKey(source.restKey),
                                  query: ["app_id": source.app.id]).status == 404)
        #expect(await app.request(.get, "/templates/\(templateID)", headers: .restKey(source.restKey),
                                  query: ["app_id": source.app.id]).status == 200)
    }

    @Test func refusesOtherKeysAndTemplatesTheSourceDoesNotHave() async throws {
        let app = try await Support.makeApp()
        let source = try await app.createApp()
        let target = try await app.createApp()
        let templateID = try await Self.makeTemplate(app, source, name: "Welcome")
        func copy(_ id: String, from appID: String, to targetID: String, headers: HTTPHeaders = Support.organization)
            async -> TestResponse
        {
            await app.request(.post, "/templates/\(id)/copy_to_app", headers: headers,
                              body: JSONValue.object(["target_app_id": .string(targetID)]).serializedBytes, query: ["app_id": appID])
        }
        // The REST key of either app is not the organization key.
        #expect(await copy(templateID, from: source.app.id, to: target.app.id, headers: .restKey(source.restKey)).status == 401)
        // Named through the other app, the template is unknown.
        let crossed = await copy(templateID, from: target.app.id, to: source.app.id)
        #expect(crossed.status == 404)
        #expect(crossed.json == ["errors": [.string("template '\(templateID)' not found")]])
        #expect(await copy(templateID, from: source.app.id, to: "app_unknown").json == ["errors": ["unknown app 'app_unknown'"]])
        #expect(await copy(templateID, from: "app_unknown", to: target.app.id).status == 404)
        let noTarget = await app.request(.post, "/templates/\(templateID)/copy_to_app", headers: Support.organization,
                                         body: JSONValue.object([:]).serializedBytes, query: ["app_id": source.app.id])
        #expect(noTarget.json == ["errors": ["target_app_id is required"]])
        let count = try await app.services.database.query("SELECT count(*)::int AS n FROM templates")
        #expect(try count[0].decode("n", as: Int.self) == 1)
    }
}
