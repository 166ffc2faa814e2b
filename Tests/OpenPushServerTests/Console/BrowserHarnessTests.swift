import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport

/// The WebDriver harness itself, against a small page served in-process: each helper does what
/// it says, so a failing page test is about the page, not the harness.
@Suite struct BrowserHarnessTests {
    static let page = """
        <!doctype html><html><head><meta charset="utf-8"><title>Harness</title></head><body>
        <h1 id="title" data-kind="heading">Harness page</h1>
        <input id="name" value="">
        <button id="go">Go</button>
        <p id="out"></p>
        <script>
        document.getElementById("go").addEventListener("click", function () {
          setTimeout(function () {
            document.getElementById("out").textContent = "hello " + document.getElementById("name").value;
          }, 300);
        });
        console.error("harness error line");
        </script>
        </body></html>
        """

    @Test func drivesAPageAndCollectsItsEvidence() async throws {
        let app = try await TestApp.make(routes: { router in
            router.add(.get, "/harness") { _ in .text(BrowserHarnessTests.page, contentType: "text/html; charset=utf-8") }
        })
        let server = try app.startHTTP()
        let url = "http://127.0.0.1:\(server.port)/harness"
        let screenshot = try await Browser.with(test: "harness") { browser in
            try await browser.navigate(to: url)
            #expect(try await browser.currentURL() == url)
            let title = try await browser.waitFor("#title", text: "Harness")
            #expect(try await title.text() == "Harness page")
            #expect(try await title.attribute("data-kind") == "heading")
            #expect(try await title.attribute("data-missing") == nil)
            #expect(try await browser.find("#absent") == nil)

            try await browser.waitFor("#name").type("Ada")
            #expect(try await browser.waitFor("#name").property("value") == "Ada")
            try await browser.waitFor("#go").click()
            // The answer comes later than the click: waiting polls until it shows.
            try await browser.waitFor("#out", text: "hello Ada")

            #expect(try await browser.execute("return {a: arguments[0] + 1, b: document.title}", [41]) == ["a": 42, "b": "Harness"])
            let errors = try await browser.consoleErrors()
            #expect(errors.contains { $0.message.contains("harness error line") }, "\(errors)")

            await #expect(throws: BrowserError.self) {
                try await browser.waitFor("#out", text: "never shown", timeout: .milliseconds(300))
            }
            return try await browser.screenshot("page")
        }
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(screenshot.hasSuffix("/.build/browser-artifacts/harness-page.png"))
        await server.shutdown()
    }

    /// A machine without Chromium fails the test, saying what installs it, rather than skipping.
    @Test func aMissingBrowserFailsNamingMakeTest() async throws {
        let error = await #expect(throws: BrowserError.self) {
            _ = try await Browser.start(test: "missing", chromium: "/nonexistent/chromium")
        }
        #expect(error?.description.contains("/nonexistent/chromium") == true)
        #expect(error?.description.contains("make test") == true)
        #expect(error?.description.contains("chromium-driver") == true)
    }
}
