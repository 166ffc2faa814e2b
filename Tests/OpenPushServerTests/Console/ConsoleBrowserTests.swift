import APNs
import APNsSimulator
import Crypto
import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// The operator console in headless Chromium against a served OpenPush with running delivery
/// workers and the APNs simulator: sign in, create an app with a `.p8`, send a test push and see
/// APNs' answer, its funnel and the live chart; a wrong key shows an error. Screenshots of
/// every page go to `.build/browser-artifacts/console-*.png`.
@Suite struct ConsoleBrowserTests {
    static let orgKey = "console-organization-key-0123456789"
    static let token = String(repeating: "c0ffee11", count: 8)

    /// An application over HTTP with the delivery engine running, pointed at a simulator that
    /// accepts any provider token (the console uploads a `.p8` of its own).
    struct Served: Sendable {
        let app: TestApp
        let server: HTTPServer
        let simulator: APNSSimulator
        let client: APNSClient
        let engine: DeliveryEngine
        var baseURL: String { "http://127.0.0.1:\(server.port)" }

        static func start() async throws -> Served {
            // Plays the sandbox, whose answers carry `apns-unique-id`, which the console shows.
            let simulator = try APNSSimulator(.init(port: 0, acceptAnyToken: true, sandbox: true))
            try simulator.start()
            let app = try await TestApp.make(configure: {
                $0.organizationAPIKey = ConsoleBrowserTests.orgKey
                $0.apnsProductionURL = simulator.endpoint
                $0.apnsDevelopmentURL = simulator.endpoint
            })
            let client = try APNSClient(configuration: APNSClientConfiguration(
                productionURL: simulator.endpoint, sandboxURL: simulator.endpoint, requestTimeout: 10))
            let engine = DeliveryEngine(services: app.services, client: client, settings: DeliveryHarness.quickSettings(),
                                        logger: .discarding())
            engine.start()
            return Served(app: app, server: try app.startHTTP(), simulator: simulator, client: client, engine: engine)
        }

        func shutdown() async {
            await server.shutdown()
            await engine.stop()
            await client.shutdown()
            simulator.stop()
        }
    }

    static func signIn(_ browser: Browser, _ served: Served, key: String) async throws {
        try await browser.navigate(to: served.baseURL + "/console")
        try await browser.waitFor("#org-key").type(key)
        try await browser.waitFor("#sign-in-form button").click()
    }

    /// A number attribute of the first element `selector` finds.
    static func number(_ browser: Browser, _ selector: String, _ attribute: String) async throws -> Double {
        let value = try await browser.execute(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
            [.string(selector), .string(attribute)])
        return Double(value.stringValue ?? "") ?? -1
    }

    @Test func signInCreateAnAppSendATestPushAndSeeItInTheFunnelAndTheLiveChart() async throws {
        let served = try await Served.start()
        defer { Task { await served.shutdown() } }
        let directory = try TemporaryDirectory.make(prefix: "console-p8")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p8 = directory + "/AuthKey_KEYID00001.p8"
        try P256SigningKey.generatePEM().write(toFile: p8, atomically: true, encoding: .utf8)

        try await Browser.with(test: "console", width: 1280, height: 1300) { browser in
            try await Self.signIn(browser, served, key: Self.orgKey)
            try await browser.waitFor("#apps")
            try await browser.waitUntil("return document.getElementById('view').dataset.ready === 'apps';", [], describing: "the apps page")
            #expect(try await browser.find("#error")?.isDisplayed() == false)

            // Create an app with a .p8 file.
            try await browser.waitFor("#new-name").type("Browser app")
            try await browser.waitFor("#new-bundle").type("com.example.browser")
            try await browser.waitFor("#new-p8").type(p8, clearing: false)
            try await browser.waitFor("#new-key-id").type("KEYID00001")
            try await browser.waitFor("#new-team-id").type("TEAM000001")
            try await browser.waitFor("#create-app button").click()
            do {
                try await browser.waitFor("#shown-once", text: "shown once", timeout: .seconds(30))
            } catch {
                // Say what the page showed instead (an error box, most likely).
                Issue.record("the page: \(try await browser.execute("return document.body.innerText;"))")
                throw error
            }
            let restKey = try await browser.waitFor("#shown-once code[data-name='REST API key']").text()
            #expect(restKey.hasPrefix("rest_"))
            let row = try await browser.waitFor("#apps tr[data-app]", text: "Browser app")
            let appID = try #require(try await row.attribute("data-app"))
            #expect(try await row.text().contains("com.example.browser"))
            let stored = try #require(try await AppStore.find(appID, in: served.app.services.database))
            #expect(stored.hasAPNSKey)
            try await browser.screenshot("apps")

            // A device, and a test push to it: the page shows APNs' (the simulator's) answer.
            let subscription = try await served.app.insertSubscription(appID: appID, token: Self.token)
            try await served.app.services.database.query("UPDATE subscriptions SET environment = 'sandbox' WHERE id = \(subscription)")
            try await browser.navigate(to: served.baseURL + "/console#/send/\(appID)")
            try await browser.waitFor("#send-subscription").type(subscription)
            try await browser.waitFor("#send-form button").click()
            let answer = try await browser.waitFor("#answer", text: "Accepted by APNs", timeout: .seconds(30))
            #expect(try await answer.attribute("data-state") == "accepted")
            #expect(try await answer.text().contains("200"))
            #expect(served.simulator.accepted().contains { $0.deviceToken == Self.token })
            let uniqueID = try #require(served.simulator.accepted().first { $0.deviceToken == Self.token }?.uniqueID)
            #expect(try await browser.waitFor("#answer .apns-unique-id").text() == uniqueID)
            try await browser.screenshot("send")

            // The message's funnel: one in the audience, sent, accepted.
            try await browser.navigate(to: served.baseURL + "/console#/messages/\(appID)")
            try await browser.waitFor("article.message")
            try await browser.waitUntil(
                "const r = document.querySelector('article.message rect[data-step=accepted]'); return !!r && r.getAttribute('data-value') === '1';",
                [], describing: "the funnel shows the accepted push")
            #expect(try await Self.number(browser, "article.message rect[data-step=audience]", "data-value") == 1)
            #expect(try await Self.number(browser, "article.message rect[data-step=accepted]", "width") > 0)
            try await browser.screenshot("messages")
            try await browser.waitFor("article.message h3 a").click()
            let record = try await browser.waitFor("#deliveries tbody tr", text: subscription)
            #expect(try await record.text().contains("accepted"))
            #expect(try await record.attribute("data-platform") == "ios")
            #expect(try await browser.waitFor("#deliveries tbody tr .apns-unique-id").text() == uniqueID)
            try await browser.screenshot("message")

            // The live chart: the accepted series has a nonzero point.
            try await browser.navigate(to: served.baseURL + "/console#/live")
            try await browser.waitUntil(
                "const p = document.querySelector('#chart-throughput path[data-series=\"accepted/s\"]'); return !!p && Number(p.getAttribute('data-max')) > 0;",
                [], describing: "the live chart shows the accepted push")
            try await browser.waitFor("#chart-queue path[data-series='queue depth']")
            try await browser.waitFor("#chart-connections path[data-series='APNs connections']")
            #expect(try await Self.number(browser, "#chart-connections path", "data-last") >= 1)
            #expect(try await browser.waitFor("#live-updated").text().contains("1 accepted"))
            try await browser.screenshot("live")

            // The app page: its keys (the console's own among them), credentials, segments.
            try await browser.navigate(to: served.baseURL + "/console#/apps/\(appID)")
            try await browser.waitFor("#keys", text: "(this console)")
            // The console's own key lasts 12 hours, and the page says so.
            let lifetimes = try await served.app.services.database.query("""
                SELECT extract(epoch FROM expires_at - created_at)::float8 AS lifetime FROM api_keys
                WHERE app_id = \(appID) AND name = 'console'
                """).map { try $0.decode("lifetime", as: Double?.self) }
            #expect(lifetimes == [43_200], "\(lifetimes)")
            #expect(try await browser.waitFor("#console-key-note").text().contains("expires 12 hours after"))
            try await browser.waitFor("#segments", text: "Subscribed Users")
            try await browser.waitFor("#key-name").type("backend")
            try await browser.waitFor("#create-key button").click()
            let issued = try await browser.waitFor("#shown-once code[data-name='REST API key']").text()
            #expect(issued.hasPrefix("rest_"))
            try await browser.waitFor("#keys", text: "backend")
            // FCM credentials: none yet; a service account key file chosen on the page is stored.
            #expect(try await browser.waitFor("#fcm-credentials").text() == "none")
            #expect(try await browser.waitFor("#fcm-status").text() == "—")
            let account = FCMServiceAccount(projectID: "console-project", privateKeyID: "kid-console",
                                            privateKey: try RSASigningKey.generatePEM(),
                                            clientEmail: "firebase-adminsdk@console-project.iam.gserviceaccount.com")
            let keyFile = directory + "/service-account.json"
            try account.json.write(toFile: keyFile, atomically: true, encoding: .utf8)
            try await browser.waitFor("#fcm-service-account").type(keyFile, clearing: false)
            try await browser.waitFor("#fcm-credentials-form button[type=submit]").click()
            try await browser.waitFor("#fcm-credentials", text: "loaded (project console-project)", timeout: .seconds(30))
            #expect(try await AppStore.find(appID, in: served.app.services.database)?.fcmProjectID == "console-project")
            try await browser.screenshot("app")

            // The audit log lists the app's creation and the key made on its page, newest first.
            try await browser.navigate(to: served.baseURL + "/console#/audit")
            let created = try await browser.waitFor("#audit tr[data-action='app.created'][data-target='\(appID)']")
            #expect(try await created.text().contains("org (organization_api_key)"))
            let keyRow = try await browser.waitFor("#audit tbody tr[data-action='api_key.created']")
            let rows = try await browser.execute("""
                return Array.from(document.querySelectorAll('#audit tbody tr')).map(r => r.dataset.action + ' ' + r.dataset.target);
                """)
            let order = rows.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(order.firstIndex(of: "app.created \(appID)") ?? 0 > order.firstIndex { $0.hasPrefix("api_key.created") } ?? 0,
                    "\(order)")
            #expect(try await keyRow.text().contains("api_key"))
            try await browser.screenshot("audit")

            // Back on the apps page, the last day's figures count the push.
            try await browser.navigate(to: served.baseURL + "/console#/apps")
            let counted = try await browser.waitFor("#apps tr[data-app='\(appID)'] td[data-figure=accepted]", text: "1")
            #expect(try await counted.text() == "1")

            // The phone layout renders too.
            try await browser.emulatePhone()
            try await browser.navigate(to: served.baseURL + "/console#/live")
            try await browser.waitFor("#chart-throughput path")
            try await browser.screenshot("live-phone")

            let errors = try await browser.consoleErrors()
            #expect(errors.isEmpty, "\(errors)")

            // Signing out deletes the key the console made and forgets the organization key.
            try await browser.resize(width: 1280, height: 1300)
            try await browser.waitFor("#sign-out").click()
            // Sign-out deletes the keys first and forgets the session last: wait for the end of it.
            try await browser.waitUntil("return sessionStorage.length === 0", describing: "the console forgot its keys")
            try await browser.waitFor("#org-key")
            let names = try await served.app.services.database.query("SELECT name FROM api_keys WHERE app_id = \(appID)")
                .map { try $0.decode("name", as: String.self) }
            #expect(!names.contains("console"), "\(names)")
            #expect(try await browser.execute("return sessionStorage.length;") == 0)
        }
    }

    @Test func aWrongKeyShowsAnErrorNotABlankPage() async throws {
        let served = try await Served.start()
        defer { Task { await served.shutdown() } }
        try await Browser.with(test: "console-wrong-key") { browser in
            try await Self.signIn(browser, served, key: "not-the-organization-key")
            let error = try await browser.waitFor("#error", text: "bad organization key")
            #expect(try await error.text().contains("refused"))
            #expect(try await browser.waitFor("#sign-in").isDisplayed())
            #expect(try await browser.waitFor("#view").isDisplayed() == false)
            #expect(try await browser.waitFor("#nav").isDisplayed() == false)
            #expect(try await browser.execute("return sessionStorage.getItem('openpush.console.org_key');") == .null)
            try await browser.screenshot("sign-in")
            // The only entry is the refused request itself (a 401), no script error.
            let errors = try await browser.consoleErrors()
            #expect(errors.allSatisfy { $0.message.contains("401") }, "\(errors)")
        }
    }
}
