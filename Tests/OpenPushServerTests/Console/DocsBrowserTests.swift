import Foundation
import Testing
import OpenPushCore
import OpenPushTestSupport
import Subprocess

/// `/docs` in headless Chromium against `openpush serve`: the page lists every operation of the
/// served `/openapi.json`, shows each error with an example body and a curl example, filters as
/// the reader types, sends a "try it" request with a pasted key, logs no console error, and
/// fits a phone. Screenshots go to `.build/browser-artifacts/docs-*.png`.
@Suite(.serialized) struct DocsBrowserTests {
    static let orgKey = "docs-browser-organization-key-0001"

    /// "METHOD /path" for every operation of the served document, counted in Swift.
    static func documentedOperations(_ served: ServedOpenPush) async throws -> Set<String> {
        let result = try await Curl.run([served.baseURL + "/openapi.json"])
        let document = try #require(try JSONValue.parse(result.body).objectValue)
        var operations = Set<String>()
        for (path, item) in document["paths"]?.objectValue ?? JSONObject() {
            for (method, _) in item.objectValue ?? JSONObject()
            where ["get", "post", "put", "patch", "delete"].contains(method) {
                operations.insert(method.uppercased() + " " + path)
            }
        }
        return operations
    }

    static func withDocs(_ test: String, width: Int = 1280, height: Int = 900,
                         _ body: @Sendable (ServedOpenPush, Browser) async throws -> Void) async throws {
        let served = try await ServedOpenPush.start(environment: ["OPENPUSH_ORG_API_KEY": orgKey])
        do {
            try await Browser.with(test: test, width: width, height: height) { browser in
                try await browser.navigate(to: served.baseURL + "/docs")
                try await browser.waitFor("body[data-ready='true'] details.op", timeout: .seconds(60))
                try await body(served, browser)
            }
        } catch {
            await served.shutdown()
            throw error
        }
        await served.shutdown()
    }

    static func visibleOperations(_ browser: Browser) async throws -> [String] {
        let listed = try await browser.execute("""
            return [...document.querySelectorAll('details.op')].filter(d => d.offsetParent !== null)
              .map(d => d.dataset.method + ' ' + d.dataset.path)
            """)
        return (listed.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Opens one operation by clicking its header, as a reader does.
    static func open(_ browser: Browser, _ method: String, _ path: String) async throws -> BrowserElement {
        let selector = "details.op[data-method='\(method)'][data-path='\(path)']"
        try await browser.waitFor(selector + " > summary").click()
        try await browser.waitFor(selector + " .op-body")
        return try await browser.waitFor(selector)
    }

    @Test func listsEveryOperationWithItsErrorsAndCurlAndFilters() async throws {
        try await Self.withDocs("docs") { served, browser in
            let documented = try await Self.documentedOperations(served)
            #expect(documented.count > 50)
            #expect(documented.contains("GET /docs"))
            let listed = try await Self.visibleOperations(browser)
            #expect(listed.count == Set(listed).count, "an operation is listed twice")
            #expect(Set(listed).subtracting(documented).isEmpty, "listed but not documented")
            #expect(documented.subtracting(listed).isEmpty, "documented but not on the page")
            #expect(try await browser.waitFor("#match-count").text() == "\(documented.count) operations")
            // Grouped by route family, each family a section of its own.
            let families = try await browser.execute("return [...document.querySelectorAll('section.family')].map(s => s.dataset.family)")
            #expect(families == ["operations", "rest", "send", "native"])
            try await browser.screenshot("desktop")
            // Measured, not asserted: from navigation start to the rendered reference.
            let rendered = try await browser.execute("return Number(document.body.dataset.renderedMs)")
            print("docs: rendered \(documented.count) operations \(rendered.doubleValue.map { Int($0) } ?? -1) ms after navigation start")

            // One operation in full: its documented 409 example, every error status with a body,
            // its auth and a curl example with the REST key header and a JSON body.
            let segments = try await Self.open(browser, "POST", "/apps/{app_id}/segments")
            try await browser.waitFor("#\(try #require(try await segments.attribute("id"))) .response.error[data-status='409'] pre.example",
                                      text: "a segment named 'Active Users' already exists")
            let errorStatuses = try await segments.findAll(".response.error").asyncMap { try await $0.attribute("data-status") ?? "" }
            #expect(errorStatuses == ["400", "401", "403", "404", "409", "413", "503"])
            for response in try await segments.findAll(".response.error") {
                let example = try #require(try await response.findAll("pre.example").first)
                let body = try JSONValue.parse(try await example.text())
                #expect(body.objectValue?["errors"]?.arrayValue?.isEmpty == false, "\(body)")
            }
            let auth = try #require(try await segments.findAll("p.auth").first)
            #expect(try await auth.text().contains("REST API key"))
            let curl = try #require(try await segments.findAll("pre.curl").first)
            let curlText = try await curl.text()
            #expect(curlText.hasPrefix("curl -X POST \"\(served.baseURL)/apps/$APP_ID/segments\""), "\(curlText)")
            #expect(curlText.contains("-H \"Authorization: Key $REST_API_KEY\""))
            #expect(curlText.contains("-H 'Content-Type: application/json'"))
            let bodyArgument = try #require(curlText.components(separatedBy: "-d '").last?.dropLast())
            let curlBody = try #require(try JSONValue.parse(String(bodyArgument)).objectValue)
            #expect(curlBody["name"] != nil && curlBody["filters"] != nil, "\(curlBody)")
            try await browser.execute("arguments[0].scrollIntoView()", [segments.json])
            try await browser.screenshot("operation")

            // Every operation opened: each error status shows an example body in its family's shape.
            try await browser.execute("document.querySelectorAll('details.op').forEach(d => { d.open = true })")
            try await browser.waitUntil("return [...document.querySelectorAll('details.op')].every(d => d.querySelector('.op-body'))",
                                        describing: "every operation rendered its body")
            let errors = try await browser.execute("""
                return [...document.querySelectorAll('details.op')].flatMap(d =>
                  [...d.querySelectorAll('.response.error')].map(r => ({
                    op: d.dataset.method + ' ' + d.dataset.path, status: r.dataset.status,
                    example: (r.querySelector('pre.example') || {}).textContent || null })))
                """)
            var checked = 0
            for item in errors.arrayValue ?? [] {
                let object = try #require(item.objectValue)
                let operation = object["op"]?.stringValue ?? ""
                let text = try #require(object["example"]?.stringValue, "\(operation) \(object["status"] ?? "") has no example")
                let body = try JSONValue.parse(text).objectValue
                if operation == "GET /ready" {
                    // Readiness answers its status object, as a load balancer reads it.
                    #expect(body?["status"] == "unavailable", "\(operation): \(text)")
                } else if operation.contains(" /v1/") {
                    #expect(body?["detail"]?.stringValue?.isEmpty == false, "\(operation): \(text)")
                } else {
                    #expect(body?["errors"]?.arrayValue?.isEmpty == false, "\(operation): \(text)")
                }
                checked += 1
            }
            #expect(checked > 150)
            // The key each operation shows is the one its declared `security` names.
            let badges = try await browser.execute("""
                return Object.fromEntries([...document.querySelectorAll('details.op')].map(d =>
                  [d.dataset.method + ' ' + d.dataset.path, (d.querySelector('.auth-badge') || {}).textContent || 'none']))
                """).objectValue ?? [:]
            let expectedBadges: [String: String] = [
                "GET /apps": "Organization key", "GET /stats/throughput": "Organization key",
                "POST /apps/{app_id}/auth/tokens": "Organization key", "POST /notifications": "REST API key",
                "GET /apps/{app_id}/live_activities/channels": "REST API key", "POST /v1/apps/{app_id}/subscriptions": "SDK key",
                "GET /metrics": "Metrics token", "GET /health": "none", "GET /docs": "none",
            ]
            for (operation, label) in expectedBadges {
                #expect(badges[operation]?.stringValue == label, "\(operation): \(badges[operation] ?? "missing")")
            }
            // Every operation has a curl example naming its method and path.
            let curls = try await browser.execute("""
                return [...document.querySelectorAll('details.op')].filter(d => {
                  const text = (d.querySelector('pre.curl') || {}).textContent || '';
                  return !(text.startsWith('curl') && text.includes(location.origin));
                }).map(d => d.dataset.method + ' ' + d.dataset.path)
                """)
            #expect(curls == [], "operations without a curl example")
            try await browser.execute("document.querySelectorAll('details.op').forEach(d => { d.open = false })")

            // Search filters as the reader types: by a word, then by method and path.
            let search = try await browser.waitFor("#search")
            try await search.type("segment")
            let bySegment = try await Self.visibleOperations(browser)
            #expect(bySegment.contains("POST /apps/{app_id}/segments"))
            #expect(bySegment.contains("GET /apps/{app_id}/segments"))
            #expect(bySegment.contains("DELETE /apps/{app_id}/segments/{segment_id}"))
            #expect(!bySegment.contains("GET /health"))
            #expect(try await browser.find(".toc > li[data-family='native']")?.isDisplayed() == false)
            #expect(bySegment.count < documented.count)
            try await browser.waitFor("#match-count", text: "\(bySegment.count) of \(documented.count) operations")
            try await browser.screenshot("search")
            try await search.type("post /notifications")
            let byPath = try await Self.visibleOperations(browser)
            #expect(byPath.contains("POST /notifications"))
            #expect(byPath.allSatisfy { $0.hasPrefix("POST ") && $0.lowercased().contains("/notifications") }, "\(byPath)")
            try await search.type("no-such-word-anywhere")
            #expect(try await Self.visibleOperations(browser).isEmpty)
            try await browser.waitFor("#no-match", text: "No operation matches")
            try await search.type("")
            try await browser.execute("arguments[0].dispatchEvent(new Event('input'))", [search.json])
            #expect(Set(try await Self.visibleOperations(browser)) == documented)

            // Each operation is a link target that opens it.
            let ids = try await browser.execute("return [...document.querySelectorAll('details.op')].map(d => d.id)")
            #expect(Set(ids.arrayValue ?? []).count == documented.count)
            try await browser.navigate(to: served.baseURL + "/docs#op-get-apps-app-id")
            try await browser.waitFor("details.op[open][data-method='GET'][data-path='/apps/{app_id}'] .op-body")

            let consoleErrors = try await browser.consoleErrors()
            #expect(consoleErrors.isEmpty, "\(consoleErrors)")
        }
    }

    @Test func tryItSendsThePastedKeyToARealRouteAndShowsTheAnswer() async throws {
        try await Self.withDocs("docs") { served, browser in
            try await browser.waitFor("#keys > summary").click()
            try await browser.waitFor("#key-org").type(Self.orgKey)

            let apps = try await Self.open(browser, "GET", "/apps")
            let id = try #require(try await apps.attribute("id"))
            try await browser.waitFor("#\(id) button.send").click()
            try await browser.waitFor("#\(id) .result .response-status", text: "200", timeout: .seconds(60))
            let body = try await browser.waitFor("#\(id) .result pre.response-body").text()
            let listed = try #require(try JSONValue.parse(body).arrayValue)
            #expect(listed.compactMap { $0.objectValue?["id"]?.stringValue } == [served.created.app.id])
            let headers = try await browser.waitFor("#\(id) .result pre.response-headers").text()
            #expect(headers.contains("x-total-count: 1"), "\(headers)")
            try await browser.execute("document.querySelector(arguments[0]).scrollIntoView()", [.string("#\(id) .try")])
            try await browser.screenshot("try-it")

            // The key stays in this tab: sessionStorage, no cookie, nothing in localStorage.
            let stored = try await browser.execute(
                "return [sessionStorage.getItem('openpush.docs.key.org'), localStorage.length, document.cookie]")
            #expect(stored == [.string(Self.orgKey), 0, ""])

            // A wrong key shows the route's 401 and its body, not a blank panel.
            try await browser.waitFor("#key-org").type("not-the-organization-key")
            try await browser.waitFor("#\(id) button.send").click()
            try await browser.waitFor("#\(id) .result .response-status", text: "401", timeout: .seconds(60))
            let refused = try JSONValue.parse(try await browser.waitFor("#\(id) .result pre.response-body").text())
            #expect(refused.objectValue?["errors"]?.arrayValue?.isEmpty == false, "\(refused)")

            // A path parameter and a query parameter filled in the panel reach the route.
            try await browser.waitFor("#key-org").type(Self.orgKey)
            let app = try await Self.open(browser, "GET", "/apps/{app_id}")
            let appID = try #require(try await app.attribute("id"))
            try await browser.waitFor("#\(appID) input[data-name='app_id']").type(served.created.app.id)
            try await browser.waitFor("#\(appID) button.send").click()
            try await browser.waitFor("#\(appID) .result .response-status", text: "200 ", timeout: .seconds(60))
            let shown = try JSONValue.parse(try await browser.waitFor("#\(appID) .result pre.response-body").text())
            #expect(shown.objectValue?["id"]?.stringValue == served.created.app.id)

            // The page's curl example runs as printed once its variables are set.
            let curl = try await browser.waitFor("#\(appID) pre.curl").text()
            #expect(curl.contains("$APP_ID") && curl.contains("$ORG_KEY"), "\(curl)")
            let run = try await Subprocess.run("/bin/bash", ["-c", curl + " -s -S -o /dev/null -w '%{http_code}'"], environment: [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                "APP_ID": served.created.app.id, "ORG_KEY": Self.orgKey,
            ])
            #expect(run.status == 0 && run.text == "200", "\(curl) → \(run.text)")

            // A native route: the SDK key goes in X-OP-SDK-Key, and the body the page built from
            // the schema registers a device.
            try await browser.waitFor("#key-sdk").type(served.created.sdkKey)
            try await browser.screenshot("keys")
            let register = try await Self.open(browser, "POST", "/v1/apps/{app_id}/subscriptions")
            let registerID = try #require(try await register.attribute("id"))
            try await browser.waitFor("#\(registerID) input[data-name='app_id']").type(served.created.app.id)
            try await browser.waitFor("#\(registerID) button.send").click()
            try await browser.waitFor("#\(registerID) .result .response-status", text: "201 ", timeout: .seconds(60))
            let registered = try JSONValue.parse(try await browser.waitFor("#\(registerID) .result pre.response-body").text())
            #expect(registered.objectValue?["created"] == true, "\(registered)")
            try await browser.execute("document.querySelector(arguments[0]).scrollIntoView()", [.string("#\(registerID) .try")])
            try await browser.screenshot("try-it-native")

            // Forgetting the keys empties the fields and the tab's storage.
            try await browser.waitFor("#forget-keys").click()
            #expect(try await browser.execute("return sessionStorage.length") == 0)
            #expect(try await browser.waitFor("#key-org").property("value") == "")

            let consoleErrors = try await browser.consoleErrors().filter { !$0.message.contains("401") }
            #expect(consoleErrors.isEmpty, "\(consoleErrors)")
        }
    }

    @Test func fitsAPhoneScreen() async throws {
        try await Self.withDocs("docs", width: 390, height: 844) { _, browser in
            try await browser.emulatePhone()
            try await browser.reload()
            try await browser.waitFor("body[data-ready='true'] details.op", timeout: .seconds(60))
            let width = try await browser.execute("return [document.documentElement.scrollWidth, window.innerWidth]")
            let widths = (width.arrayValue ?? []).compactMap(\.intValue)
            #expect(widths.count == 2 && widths[0] <= widths[1], "the page scrolls sideways: \(width)")
            #expect(widths.last == 390)
            try await browser.screenshot("phone")
            let operation = try await Self.open(browser, "POST", "/notifications")
            try await browser.execute("arguments[0].scrollIntoView()", [operation.json])
            let after = try await browser.execute("return document.documentElement.scrollWidth <= window.innerWidth")
            #expect(after == true, "an open operation makes the page scroll sideways")
            try await browser.screenshot("phone-operation")
            try await browser.execute("document.querySelector(arguments[0]).scrollIntoView()",
                                      [.string("#\(try #require(try await operation.attribute("id"))) .response.error")])
            try await browser.screenshot("phone-errors")
            #expect(try await browser.consoleErrors().isEmpty)
        }
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
