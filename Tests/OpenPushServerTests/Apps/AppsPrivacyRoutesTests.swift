import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// `default_privacy_text` on `POST/GET/PUT /apps`.
@Suite struct AppsPrivacyRoutesTests {
    typealias Support = AppsTestSupport

    @Test func defaultPrivacyTextIsCreatedShownAndUpdated() async throws {
        let app = try await Support.makeApp()
        let bare = try #require(await app.request(.post, "/apps", headers: Support.organization, json: ["name": "Bare"]).json?.objectValue)
        #expect(bare["default_privacy_text"] == "New notification")
        let created = await app.request(.post, "/apps", headers: Support.organization,
                                        json: ["name": "Chat", "default_privacy_text": "Nouveau message"])
        let id = try #require(created.json?.objectValue?["id"]?.stringValue)
        #expect(created.json?.objectValue?["default_privacy_text"] == "Nouveau message")
        #expect(await app.request(.get, "/apps/\(id)", headers: Support.organization).json?
            .objectValue?["default_privacy_text"] == "Nouveau message")
        let updated = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["default_privacy_text": "Ping"])
        #expect(updated.json?.objectValue?["default_privacy_text"] == "Ping")
        // An update that leaves it out keeps it.
        let renamed = await app.request(.put, "/apps/\(id)", headers: Support.organization, json: ["name": "Chat 2"])
        #expect(renamed.json?.objectValue?["default_privacy_text"] == "Ping")
    }

    @Test(arguments: [
        (JSONValue.null, "default_privacy_text cannot be null"),
        (JSONValue.string(""), "default_privacy_text must not be blank"),
        (JSONValue.string("  "), "default_privacy_text must not be blank"),
        (JSONValue.string(String(repeating: "x", count: 256)), "default_privacy_text must be 255 characters or fewer"),
        (JSONValue.int(5), "default_privacy_text must be a string, got number"),
    ])
    func aWrongDefaultPrivacyTextIsA400NamingIt(value: JSONValue, message: String) async throws {
        let app = try await Support.makeApp()
        let create = await app.request(.post, "/apps", headers: Support.organization,
                                       json: ["name": "X", "default_privacy_text": value])
        #expect(create.status == 400)
        #expect(create.json == ["errors": [.string(message)]])
        let existing = try await app.createApp()
        let update = await app.request(.put, "/apps/\(existing.app.id)", headers: Support.organization,
                                       json: ["default_privacy_text": value])
        #expect(update.status == 400)
        #expect(update.json == ["errors": [.string(message)]])
        // 255 characters is fine.
        let longest = await app.request(.put, "/apps/\(existing.app.id)", headers: Support.organization,
                                        json: ["default_privacy_text": .string(String(repeating: "y", count: 255))])
        #expect(longest.status == 200)
    }
}
