import Foundation
package import OpenPushCore
import HTTPClient
import Subprocess

/// Headless Chromium driven over W3C WebDriver: Debian's `chromedriver` on a free port of
/// 127.0.0.1, one session, spoken to with the project's libcurl client. Use it scoped, so the
/// session and the driver always end:
///
/// ```swift
/// try await Browser.with(test: "docs") { browser in
///     try await browser.navigate(to: served.baseURL + "/docs")
///     let title = try await browser.waitFor("h1", text: "OpenPush").text()
///     try await browser.screenshot("desktop")
/// }
/// ```
package final class Browser: Sendable {
    package static let chromiumPath = "/usr/bin/chromium"
    package static let chromedriverPath = "/usr/bin/chromedriver"
    /// Screenshots land here: under the build directory, never committed.
    package static let artifactsDirectory = TestApp.repositoryRoot + "/.build/browser-artifacts"

    /// Names this test's screenshots: `<test>-<page>.png`.
    package let test: String
    private let driver: Subprocess
    private let client: HTTPClient
    private let driverURL: String
    private let sessionURL: String

    /// Starts chromedriver and a browser session, runs `body`, then quits both, whether `body`
    /// returned or threw.
    package static func with<T: Sendable>(test: String, width: Int = 1280, height: Int = 900,
                                         _ body: (Browser) async throws -> T) async throws -> T {
        let browser = try await Browser.start(test: test, width: width, height: height)
        let result: T
        do {
            result = try await body(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        return result
    }

    /// Fails (never skips) when Chromium or its driver is missing, naming what installs them.
    package static func start(test: String, width: Int = 1280, height: Int = 900,
                             chromium chromiumPath: String = chromiumPath,
                             chromedriver chromedriverPath: String = chromedriverPath) async throws -> Browser {
        for path in [chromiumPath, chromedriverPath] where !FileManager.default.isExecutableFile(atPath: path) {
            throw BrowserError.notInstalled(path)
        }
        // Port 0: the driver picks a free port and says which.
        let driver = try Subprocess(chromedriverPath, ["--port=0"], environment: ProcessInfo.processInfo.environment)
        let port = try await waitForPort(of: driver)
        let client = try HTTPClient(userAgent: "OpenPush browser tests")
        let driverURL = "http://127.0.0.1:\(port)"
        let capabilities: JSONValue = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": .string(chromiumPath),
                        "args": .array(["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                        "--window-size=\(width),\(height)", "--no-first-run", "--no-default-browser-check",
                                        "--disable-extensions", "--lang=en-US"].map { .string($0) }),
                    ],
                    "goog:loggingPrefs": ["browser": "ALL"],
                    "pageLoadStrategy": "normal",
                ],
            ],
        ]
        do {
            let created = try await Self.call(client, "POST", driverURL + "/session", capabilities)
            guard let session = created.objectValue?["sessionId"]?.stringValue else {
                throw BrowserError("chromedriver created no session: \(created.serialized)")
            }
            return Browser(test: test, driver: driver, client: client, driverURL: driverURL,
                           sessionURL: driverURL + "/session/" + session)
        } catch {
            await client.shutdown()
            driver.signal(SIGTERM)
            _ = try? await driver.exited()
            throw BrowserError("cannot start a Chromium session: \(error)\nchromedriver said:\n\(driver.output)")
        }
    }

    private init(test: String, driver: Subprocess, client: HTTPClient, driverURL: String, sessionURL: String) {
        self.test = test
        self.driver = driver
        self.client = client
        self.driverURL = driverURL
        self.sessionURL = sessionURL
    }

    private static func waitForPort(of driver: Subprocess) async throws -> Int {
        let marker = "started successfully on port "
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let output = driver.output
            if let range = output.range(of: marker) {
                let digits = output[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return port }
            }
            guard driver.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        driver.signal(SIGKILL)
        throw BrowserError("chromedriver did not start:\n\(driver.output)")
    }

    /// Ends the session (which closes Chromium) and stops the driver.
    package func quit() async {
        _ = try? await Self.call(client, "DELETE", sessionURL, nil)
        await client.shutdown()
        driver.signal(SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while driver.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if driver.isRunning { driver.signal(SIGKILL) }
        _ = try? driver.waitForExit()
    }

    // MARK: Pages

    /// Loads `url` and waits for the document's load event.
    package func navigate(to url: String) async throws {
        _ = try await command("POST", "url", ["url": .string(url)])
    }

    package func currentURL() async throws -> String {
        try await command("GET", "url").stringValue ?? ""
    }

    package func reload() async throws {
        _ = try await command("POST", "refresh", [:])
    }

    /// The window's outer size; a phone is about 390 × 844.
    package func resize(width: Int, height: Int) async throws {
        _ = try await command("POST", "window/rect", ["width": .int(Int64(width)), "height": .int(Int64(height))])
    }

    /// Emulates a phone's screen: its viewport width, pixel ratio and touch, so the page's
    /// `<meta name="viewport">` and media queries act as on the device (a narrow desktop
    /// window alone would not apply the viewport rules).
    package func emulatePhone(width: Int = 390, height: Int = 844, scale: Double = 3) async throws {
        _ = try await devTools("Emulation.setDeviceMetricsOverride", [
            "width": .int(Int64(width)), "height": .int(Int64(height)), "deviceScaleFactor": .double(scale), "mobile": true,
        ])
        _ = try await devTools("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 5])
    }

    /// A Chrome DevTools Protocol command through chromedriver.
    package func devTools(_ method: String, _ parameters: JSONObject = [:]) async throws -> JSONValue {
        try await command("POST", "goog/cdp/execute", ["cmd": .string(method), "params": .object(parameters)])
    }

    // MARK: Elements

    /// The first element matching a CSS selector, or `nil`.
    package func find(_ selector: String) async throws -> BrowserElement? {
        try await findAll(selector).first
    }

    package func findAll(_ selector: String) async throws -> [BrowserElement] {
        let found = try await command("POST", "elements", ["using": "css selector", "value": .string(selector)])
        return (found.arrayValue ?? []).compactMap(element(from:))
    }

    /// Polls until an element matches `selector` (and, with `text`, until its rendered text
    /// contains `text`); throws naming what was missing when `timeout` passes.
    @discardableResult
    package func waitFor(_ selector: String, text: String? = nil, timeout: Duration = .seconds(60)) async throws
        -> BrowserElement
    {
        let deadline = ContinuousClock.now + timeout
        var lastText: [String] = []
        while true {
            let elements = try await findAll(selector)
            if let text {
                lastText = []
                for element in elements {
                    let shown = (try? await element.text()) ?? ""
                    if shown.contains(text) { return element }
                    lastText.append(String(shown.prefix(120)))
                }
            } else if let first = elements.first {
                return first
            }
            guard ContinuousClock.now < deadline else {
                let found = elements.isEmpty ? "nothing matched" : "\(elements.count) matched, showing \(lastText)"
                throw BrowserError("after \(timeout), no '\(selector)'\(text.map { " containing '\($0)'" } ?? ""): \(found)"
                    + " on \((try? await currentURL()) ?? "?"); console: \((try? await consoleLog().map(\.description)) ?? [])")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Polls until `script` (a function body) returns `true`.
    package func waitUntil(_ script: String, _ arguments: [JSONValue] = [], timeout: Duration = .seconds(60),
                          describing what: String) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await execute(script, arguments) != .bool(true) {
            guard ContinuousClock.now < deadline else { throw BrowserError("after \(timeout): \(what)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Runs `script` as the body of a function in the page (`arguments[0]`, … are
    /// `arguments`) and returns what it returns, as JSON; elements come back as references.
    @discardableResult
    package func execute(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await command("POST", "execute/sync", ["script": .string(script), "args": .array(arguments)])
    }

    // MARK: Evidence

    /// What the page wrote to the console since the last call (chromedriver hands each entry
    /// out once), with script errors, failed loads and CSP refusals as `SEVERE`.
    package func consoleLog() async throws -> [BrowserLogEntry] {
        let entries: JSONValue
        do {
            entries = try await command("POST", "se/log", ["type": "browser"])
        } catch {
            entries = try await command("POST", "log", ["type": "browser"])
        }
        return (entries.arrayValue ?? []).compactMap { entry in
            guard let object = entry.objectValue else { return nil }
            return BrowserLogEntry(level: object["level"]?.stringValue ?? "", message: object["message"]?.stringValue ?? "")
        }
    }

    /// The console entries at `SEVERE`: JavaScript errors, failed requests, CSP violations.
    package func consoleErrors() async throws -> [BrowserLogEntry] {
        try await consoleLog().filter { $0.level == "SEVERE" }
    }

    /// Saves the viewport as `.build/browser-artifacts/<test>-<page>.png` and returns its path.
    @discardableResult
    package func screenshot(_ page: String) async throws -> String {
        let encoded = try await command("GET", "screenshot").stringValue ?? ""
        guard let data = Data(base64Encoded: encoded) else { throw BrowserError("the screenshot is not base64") }
        try FileManager.default.createDirectory(atPath: Self.artifactsDirectory, withIntermediateDirectories: true)
        let path = Self.artifactsDirectory + "/\(Self.fileName(test))-\(Self.fileName(page)).png"
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func fileName(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
    }

    // MARK: WebDriver

    func element(from value: JSONValue) -> BrowserElement? {
        value.objectValue?[BrowserElement.key]?.stringValue.map { BrowserElement(id: $0, browser: self) }
    }

    /// One session command: `GET` sends no body, every other method a JSON object.
    func command(_ method: String, _ path: String, _ body: JSONObject? = nil) async throws -> JSONValue {
        try await Self.call(client, method, sessionURL + "/" + path, body.map(JSONValue.object))
    }

    /// A WebDriver call: the answer's `value`, or its `error` and `message` as a `BrowserError`.
    static func call(_ client: HTTPClient, _ method: String, _ url: String, _ body: JSONValue?) async throws -> JSONValue {
        let request = HTTPClientRequest(url: url, method: method,
                                        headers: body == nil ? [] : [(name: "Content-Type", value: "application/json")],
                                        body: body?.serializedBytes ?? [], timeout: .seconds(60),
                                        maxResponseBytes: 64 << 20)
        let response = try await client.send(request)
        let parsed = (try? JSONValue.parse(response.body)) ?? .null
        let value = parsed.objectValue?["value"] ?? .null
        guard response.status == 200 else {
            let error = value.objectValue?["error"]?.stringValue ?? "HTTP \(response.status)"
            let message = value.objectValue?["message"]?.stringValue ?? String(decoding: response.body.prefix(500), as: UTF8.self)
            throw BrowserError("WebDriver \(method) \(url.split(separator: "/").suffix(2).joined(separator: "/")): \(error): "
                + String(message.prefix(500)))
        }
        return value
    }
}

/// One line of the page's console.
package struct BrowserLogEntry: Sendable, CustomStringConvertible {
    /// `SEVERE`, `WARNING`, `INFO`, `DEBUG`.
    package var level: String
    package var message: String
    package var description: String { "\(level): \(message)" }
}
