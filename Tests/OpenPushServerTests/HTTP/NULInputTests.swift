import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// PostgreSQL stores no U+0000: `jsonb` refuses it (a 500 before) and libpq ends a text
/// parameter at it (so `app%00junk` was looked up as `app`). Each is a 400 naming the input.
@Suite struct NULInputTests {
    @Test func aNULInAnUpdateBodyIsA400NamingTheField() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let path = "/apps/\(created.app.id)/live_activities/act-1/notifications"
        let body = #"{"event": "update", "event_updates": {"s": "x\u0000"}, "name": "n\u0000", "sound": "\u0000"}"#
        let response = await app.request(.post, path, headers: .restKey(created.restKey), body: Array(body.utf8))
        #expect(response.status == 400)
        #expect(response.json == ["errors": [
            "event_updates.s must not contain NUL characters", "name must not contain NUL characters",
            "sound must not contain NUL characters",
        ]])
    }

    @Test func aNULInAPathSegmentQueryOrHeaderIsA400NotATruncatedLookup() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let subscription = try await app.insertSubscription(appID: created.app.id, token: String(repeating: "a", count: 64))
        let truncated = await app.request(.get, "/apps/\(created.app.id)%00junk/subscriptions/\(subscription)",
                                          headers: .restKey(created.restKey))
        #expect(truncated.status == 400)
        #expect(truncated.json == ["errors": ["app_id must not contain NUL characters"]])
        let query = await app.request(.get, "/notifications", headers: .restKey(created.restKey),
                                      query: ["app_id": created.app.id + "\u{0}x"])
        #expect(query.json == ["errors": ["app_id must not contain NUL characters"]])
        var headers = HTTPHeaders.sdkKey(created.sdkKey)
        headers.add(name: "X-OP-Device-Key", value: "k\u{0}")
        let header = await app.request(.post, "/v1/apps/\(created.app.id)/subscriptions", headers: headers,
                                       json: ["token": .string(String(repeating: "a", count: 64))])
        #expect(header.status == 400)
        #expect(header.json == ["detail": "X-OP-Device-Key must not contain NUL characters"])
    }
}
