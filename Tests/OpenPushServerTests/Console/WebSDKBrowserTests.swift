import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport

/// The browser SDK in headless Chromium, on a page OpenPush serves: the snippet loads without an
/// error and exposes `OpenPush.init`; the service worker's push handler shows the payload's texts,
/// or its fallback line for a push without any. A real push subscription needs a browser vendor's
/// push service, which a test cannot reach: that part is not exercised here.
@Suite struct WebSDKBrowserTests {
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><title>SDK</title></head><body>
        <p id="state">loading</p>
        <script src="/sdk/web/openpush.js"></script>
        <script src="/sdk/web/openpush-sw.js"></script>
        <script src="/sdk-page.js"></script>
        </body></html>
        """
    static let pageScript = """
        document.getElementById("state").textContent = typeof OpenPush.init === "function" ? "ready" : "missing";
        """

    @Test func theSnippetLoadsAndExposesInit() async throws {
        let app = try await TestApp.make(routes: { router in
            router.add(.get, "/sdk-page") { _ in .text(WebSDKBrowserTests.page, contentType: "text/html; charset=utf-8") }
            router.add(.get, "/sdk-page.js") { _ in .text(WebSDKBrowserTests.pageScript, contentType: "text/javascript") }
        })
        let server = try app.startHTTP()
        try await Browser.with(test: "web-sdk") { browser in
            try await browser.navigate(to: "http://127.0.0.1:\(server.port)/sdk-page")
            try await browser.waitFor("#state", text: "ready")
            #expect(try await browser.execute("return typeof OpenPush.init") == "function")
            #expect(try await browser.execute("return OpenPush.version") == 1)
            // The page has no icon: the browser's own favicon request is not the SDK's.
            let errors = try await browser.consoleErrors().filter { !$0.message.contains("favicon.ico") }
            #expect(errors.isEmpty, "\(errors)")

            // init without its options refuses, saying what it needs.
            let refusal = try await browser.execute("""
                return OpenPush.init({}).then(function () { return "resolved"; }, function (error) { return error.message; });
                """)
            #expect(refusal == "OpenPush.init needs appId, sdkKey and serverURL")

            // The worker's push handler, driven with a stand-in registration.
            let shown = try await browser.execute("""
                var shown = [];
                self.registration = { showNotification: function (title, options) { shown.push({title: title, body: options.body,
                    icon: options.icon || null, url: options.data.url, id: options.data.openpush && options.data.openpush.notification_id});
                    return Promise.resolve(); } };
                function push(json) {
                  var event = new Event("push");
                  event.data = { json: function () { return JSON.parse(json); }, text: function () { return json; } };
                  event.waitUntil = function () {};
                  self.dispatchEvent(event);
                }
                push('{"title":"Sale","body":"50% off","icon":"https://shop.example.com/i.png","url":"https://shop.example.com/s",' +
                     '"openpush":{"notification_id":"msg_1","subscription_id":"sub_1"}}');
                push('{"openpush":{"notification_id":"msg_2","subscription_id":"sub_1"}}');
                push('{"body":"Privacy text","openpush":{"notification_id":"msg_3"}}');
                return shown;
                """)
            #expect(shown == [
                ["title": "Sale", "body": "50% off", "icon": "https://shop.example.com/i.png", "url": "https://shop.example.com/s", "id": "msg_1"],
                ["title": "New notification", "body": "You have a new notification.", "icon": .null, "url": .null, "id": "msg_2"],
                ["title": "New notification", "body": "Privacy text", "icon": .null, "url": .null, "id": "msg_3"],
            ])
            #expect(try await browser.consoleErrors().filter { !$0.message.contains("favicon.ico") }.isEmpty)
        }
        await server.shutdown()
    }
}
