import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport

/// The browser SDK's two files, public and cacheable, and the cross-origin access the snippet
/// needs to reach the `/v1` routes from the app's own site.
@Suite struct WebSDKTests {
    @Test func theSnippetAndTheServiceWorkerNeedNoKeyAndCarryTheirHeaders() async throws {
        let app = try await TestApp.make()
        for (path, marker) in [("/sdk/web/openpush.js", "OpenPush = { init: init"),
                               ("/sdk/web/openpush-sw.js", "addEventListener(\"notificationclick\"")] {
            let response = await app.request(.get, path)
            #expect(response.status == 200, "\(path): \(response.text)")
            #expect(response.headers["Content-Type"] == "text/javascript; charset=utf-8", "\(path)")
            #expect(response.headers["Cache-Control"] == "no-cache")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff")
            #expect(response.headers["Cross-Origin-Resource-Policy"] == "cross-origin")
            #expect(response.text.contains(marker), "\(path)")
            let etag = try #require(response.headers["ETag"])
            let again = await app.request(.get, path, headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again.body.isEmpty)
            let allowed = response.headers["Service-Worker-Allowed"]
            #expect(path.hasSuffix("-sw.js") ? allowed == "/" : allowed == nil, "\(path)")
        }
        #expect(await app.request(.get, "/sdk/web/other.js").status == 404)
        #expect(await app.request(.get, "/sdk/web/../console/console.js").status == 404)
    }

    @Test func theServiceWorkerReadsThePayloadAndReportsTapsThroughTheOpenedRoute() async throws {
        let app = try await TestApp.make()
        let worker = await app.request(.get, "/sdk/web/openpush-sw.js").text
        for field in ["title", "body", "icon", "image", "badge", "url", "tag", "data", "openpush", "notification_id"] {
            #expect(worker.contains(field), "\(field)")
        }
        #expect(worker.contains("/notifications/\" + encodeURIComponent(openpush.notification_id) + \"/opened\""))
        #expect(worker.contains("FALLBACK_TITLE"))
        let snippet = await app.request(.get, "/sdk/web/openpush.js").text
        #expect(snippet.contains("/web-push\"") && snippet.contains("/subscriptions\"") && snippet.contains("platform: \"web\""))
        #expect(snippet.contains("userVisibleOnly: true"))
    }

    @Test func v1RoutesAnswerBrowsersFromAnyOrigin() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let preflight = await app.request(HTTPMethod(rawValue: "OPTIONS"), "/v1/apps/\(created.app.id)/subscriptions",
                                          headers: ["Origin": "https://shop.example.com", "Access-Control-Request-Method": "POST"])
        #expect(preflight.status == 204)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
        #expect(preflight.headers["Access-Control-Allow-Methods"] == "GET, POST")
        #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("X-OP-SDK-Key") == true)
        // Errors too, so the page can read them.
        let refused = await app.request(.get, "/v1/apps/\(created.app.id)/web-push")
        #expect(refused.status == 401 && refused.headers["Access-Control-Allow-Origin"] == "*")
        // Not the organization's REST routes.
        let rest = await app.request(HTTPMethod(rawValue: "OPTIONS"), "/apps")
        #expect(rest.status != 204 && rest.headers["Access-Control-Allow-Origin"] == nil)
    }
}
