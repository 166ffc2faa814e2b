import Foundation
import Testing
import Crypto
import FCMSimulator
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres
import Subprocess
import WebPushSimulator

/// Browsers reached through Web Push end to end: `POST /notifications` → planner → Web Push
/// transport → push service simulator (which decrypts each push with the subscription's keys and
/// reads its VAPID claims), beside APNs and FCM for the Apple and Android devices of the same
/// audience; the push services' answers recorded: a gone subscription unsubscribed, VAPID
/// refusals ending the push and pausing the app's web push at ten, in that app only.
@Suite struct WebPushDeliveryTests {
    static let subject = "mailto:ops@example.com"

    struct Setup {
        let harness: DeliveryHarness
        let web: WebPushSimulator
        let fcm: FCMSimulator
        /// Apple, Android and browsers.
        let a: CreatedApp
        /// Apple and browsers.
        let b: CreatedApp
        var database: PostgresPool { harness.app.services.database }

        func shutdown() async {
            await harness.shutdown()
            await web.stop()
            await fcm.stop()
        }

        func send(_ app: CreatedApp, _ body: JSONObject = [:]) async throws -> String {
            var json: JSONObject = ["app_id": .string(app.app.id), "included_segments": ["Subscribed Users"],
                                    "headings": ["en": "Kick-off"], "contents": ["en": "The match starts"]]
            for (key, value) in body { json[key] = value }
            let sent = await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: .object(json))
            try #require(sent.status == 200, "send: \(sent.text)")
            return try #require(sent.json?.objectValue?["id"]?.stringValue)
        }

        /// A browser subscription of `app` at the simulator's `path`, known to the simulator (so
        /// it decrypts) and straight in the table (registration is another part's).
        @discardableResult
        func browser(_ app: CreatedApp, path: String, language: String? = nil) async throws -> String {
            let keys = try web.subscribe(path: path)
            let id = Identifier.make(prefix: "sub", now: harness.app.services.now(), random: KeyMaterial.identifierEntropy())
            try await database.query("""
                INSERT INTO subscriptions (id, app_id, platform, token, web_p256, web_auth, web_type, language,
                                           first_session_at, last_session_at)
                VALUES (\(id), \(app.app.id), 'web', \(web.endpoint(path: path)), \(keys.p256dh), \(keys.auth), 'ChromePush',
                        \(language), now(), now())
                """)
            return id
        }

        @discardableResult
        func android(_ app: CreatedApp, token: String) async throws -> String {
            let id = Identifier.make(prefix: "sub", now: harness.app.services.now(), random: KeyMaterial.identifierEntropy())
            try await database.query("""
                INSERT INTO subscriptions (id, app_id, platform, token, first_session_at, last_session_at)
                VALUES (\(id), \(app.app.id), 'android', \(token), now(), now())
                """)
            return id
        }

        @discardableResult
        func apple(_ app: CreatedApp, token: String) async throws -> String {
            try await harness.app.insertSubscription(appID: app.app.id, token: token)
        }

        func run(until done: @escaping () async throws -> Bool) async throws {
            for _ in 0..<600 {
                try await harness.drain()
                if try await done() { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("the deliveries did not settle")
        }

        func records(_ messageID: String) async throws -> [String: (state: String, reason: String?)] {
            let rows = try await database.query("""
                SELECT subscription_id, state, error_reason FROM deliveries WHERE message_id = \(messageID)
                """)
            var records: [String: (state: String, reason: String?)] = [:]
            for row in rows { records[try row.decode("subscription_id")] = (try row.decode("state"), try row.decode("error_reason")) }
            return records
        }

        func webPaused(_ app: CreatedApp) async throws -> (paused: Bool, reason: String?) {
            let row = try await database.query("""
                SELECT web_push_paused_at IS NOT NULL AS paused, web_push_status_reason FROM apps WHERE id = \(app.app.id)
                """).firstRow()
            return (try row.decode("paused"), try row.decode("web_push_status_reason"))
        }

        func invalid(_ subscriptionID: String) async throws -> Bool {
            try await database.query("""
                SELECT token_invalid_at IS NOT NULL AS invalid FROM subscriptions WHERE id = \(subscriptionID)
                """).firstRow().decode("invalid")
        }
    }

    static func setup(organizationKey: String? = nil) async throws -> Setup {
        let web = WebPushSimulator()
        try web.start()
        let pem = try RSASigningKey.generatePEM()
        let email = "firebase-adminsdk@project-w.iam.gserviceaccount.com"
        let fcm = try FCMSimulator(.init(serviceAccounts: [FCMSimulator.ServiceAccount(
            clientEmail: email, privateKeyID: "kid-w", projectID: "project-w", privateKeyPEM: pem)]))
        try fcm.start()
        let harness = try await DeliveryHarness.make(configure: {
            $0.fcmURL = fcm.endpoint
            $0.fcmTokenURL = fcm.tokenURL
            $0.webPushHosts = [.exact("127.0.0.1")]
            $0.webhooksAllowPrivate = true
            $0.webPushSubject = subject
            $0.organizationAPIKey = organizationKey
        })
        var settings = AppSettings(name: "Everywhere", apnsP8: harness.p8, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
                                   apnsBundleID: DeliveryHarness.bundleID)
        settings.fcmServiceAccount = FCMServiceAccount(projectID: "project-w", privateKeyID: "kid-w", privateKey: pem, clientEmail: email)
        let a = try await harness.app.createApp(settings)
        return Setup(harness: harness, web: web, fcm: fcm, a: a, b: harness.created)
    }

    /// One send to an iPhone, an Android phone and a browser: one push each, on its own service;
    /// the browser's decrypted by the simulator to the plaintext exactly, signed for the
    /// endpoint's origin with the app's key and subject; each recorded accepted.
    @Test func aMixedAudienceGetsOnePushEachOnTheRightService() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let phone = try await setup.apple(setup.a, token: String(repeating: "f1", count: 32))
        let droid = try await setup.android(setup.a, token: "fcm-token-of-the-mixed-audience")
        let browser = try await setup.browser(setup.a, path: "/push/mixed", language: "fr")
        let message = try await setup.send(setup.a, [
            "headings": ["en": "Kick-off", "fr": "Coup d'envoi"], "contents": ["en": "The match starts", "fr": "Le match commence"],
            "chrome_web_icon": "https://example.com/i.png", "web_url": "https://example.com/m/42", "priority": 10,
        ])
        try await setup.run { try await setup.records(message).count == 3 }
        let records = try await setup.records(message)
        #expect(records[phone]?.state == "accepted")
        #expect(records[droid]?.state == "accepted")
        #expect(records[browser]?.state == "accepted")
        #expect(setup.harness.simulator.accepted().map(\.deviceToken) == [String(repeating: "f1", count: 32)])
        #expect(setup.fcm.counters.sends == 1)
        let pushes = setup.web.received()
        try #require(pushes.count == 1)
        let push = pushes[0]
        #expect(push.status == 201)
        #expect(push.decryptError == nil)
        #expect(String(decoding: try #require(push.plaintext), as: UTF8.self)
            == #"{"title":"Coup d'envoi","body":"Le match commence","icon":"https://example.com/i.png","#
            + #""url":"https://example.com/m/42","openpush":{"notification_id":"\#(message)","subscription_id":"\#(browser)"}}"#)
        let vapid = try #require(push.vapid)
        #expect(vapid.audience == setup.web.endpoint(path: "/").dropLast(1).description)
        #expect(vapid.subject == Self.subject)
        let stored = try await setup.database.query("""
            SELECT web_push_vapid_public_key FROM apps WHERE id = \(setup.a.app.id)
            """).firstRow().decode("web_push_vapid_public_key", as: String.self)
        #expect(vapid.publicKey == stored)
        #expect(push.headers["urgency"] == "high")
        // `/metrics` counts it under its own service.
        let metrics = setup.harness.app.services.metrics.render()
        #expect(metrics.contains(#"openpush_pushes_total{kind="device",state="accepted",reason="",service="webpush"} 1"#))
        #expect(metrics.contains(#"openpush_delivery_latency_seconds_count{service="webpush"} 1"#))
        // The deliveries route names the browser's platform.
        let listed = await setup.harness.app.request(.get, "/notifications/\(message)/deliveries",
                                                     headers: .restKey(setup.a.restKey), query: ["app_id": setup.a.app.id])
        let rows = try #require(listed.json?.objectValue?["deliveries"]?.arrayValue).compactMap { $0.objectValue }
        #expect(rows.first { $0["subscription_id"] == .string(browser) }?["platform"] == "web")
        #expect(rows.first { $0["subscription_id"] == .string(droid) }?["platform"] == "android")
    }

    /// A push as OpenPush sent it, read by code that shares nothing with OpenPush's: Mozilla's
    /// `http_ece` (Python) decrypts the body with the browser's private key and auth secret, and
    /// Python's `cryptography` verifies the VAPID JWT against the header's `k=` key, for the
    /// endpoint's origin (`Tests/compat/webpush_independent_check.py`, in the virtual environment
    /// `make test` creates).
    @Test func anIndependentImplementationDecryptsThePushAndVerifiesItsSignature() async throws {
        let python = OneSignalPythonClientTests.venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("\(python) is missing: run `make test`, which creates that virtual environment (`make compat-venv` alone does)")
            return
        }
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let browser = try await setup.browser(setup.a, path: "/push/independent")
        let keys = try #require(setup.web.subscriptions().first { $0.path == "/push/independent" })
        let message = try await setup.send(setup.a, ["web_url": "https://example.com/read"])
        try await setup.run { try await setup.records(message)[browser]?.state == "accepted" }
        let push = try #require(setup.web.received().first)
        let audience = setup.web.endpoint(path: "/").dropLast(1).description
        let request: [String: Any] = [
            "body": Base64URL.encode(try #require(push.body)), "browser_private_key_pem": try keys.keys.privateKeyPEM(),
            "auth_secret": Base64URL.encode(keys.authSecret), "authorization": try #require(push.headers["authorization"]),
            "audience": audience, "now": Int(Date().timeIntervalSince1970),
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await Subprocess.run(python, [TestApp.repositoryRoot + "/Tests/compat/webpush_independent_check.py", file.path],
                                              environment: ["PATH": "/usr/bin:/bin"])
        try #require(output.status == 0, "the independent check refused the push: \(output.text)")
        let line = try #require(output.text.split(separator: "\n").last)
        let read = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(read["plaintext"] as? String
            == #"{"title":"Kick-off","body":"The match starts","url":"https://example.com/read","#
            + #""openpush":{"notification_id":"\#(message)","subscription_id":"\#(browser)"}}"#)
        let claims = try #require(read["claims"] as? [String: Any])
        #expect(claims["aud"] as? String == audience)
        #expect(claims["sub"] as? String == Self.subject)
        let stored = try await setup.database.query("""
            SELECT web_push_vapid_public_key FROM apps WHERE id = \(setup.a.app.id)
            """).firstRow().decode("web_push_vapid_public_key", as: String.self)
        #expect(read["public_key"] as? String == stored)
    }

    /// A subscription its push service says is gone (`410`) is unsubscribed, with the
    /// `token.invalidated` event, and is no recipient of the next send.
    @Test func aGoneSubscriptionIsUnsubscribed() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let gone = try await setup.browser(setup.a, path: "/push/gone")
        let kept = try await setup.browser(setup.a, path: "/push/kept")
        setup.web.force(.gone, path: "/push/gone")
        let message = try await setup.send(setup.a)
        try await setup.run { try await setup.records(message).count == 2 }
        let records = try await setup.records(message)
        #expect(records[gone]?.state == "error")
        #expect(records[gone]?.reason == "WebPushGone")
        #expect(records[kept]?.state == "accepted")
        #expect(try await setup.invalid(gone))
        #expect(try await !setup.invalid(kept))
        let events = try await setup.database.query("""
            SELECT app_id, data::text AS data FROM events WHERE type = 'token.invalidated'
            """)
        #expect(events.count == 1)
        #expect(try events.firstRow().decode("data", as: String.self).contains(gone))
        let next = try await setup.send(setup.a)
        try await setup.run { try await setup.records(next).count == 1 }
        #expect(try await setup.records(next)[gone] == nil)
    }

    /// Ten web pushes of a job all refused for their VAPID signature (`401`/`403`) end in error,
    /// keep their subscriptions, and pause the app's web push; nine do not pause another app.
    /// While paused, the app's Apple pushes go and its browser pushes wait; the other app's go.
    @Test func tenVAPIDRefusalsPauseOnlyThatAppsWebPush() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        var refusedA: [String] = []
        for index in 0..<10 {
            refusedA.append(try await setup.browser(setup.a, path: "/push/a\(index)"))
            setup.web.force(index.isMultiple(of: 2) ? .unauthorized : .forbidden, path: "/push/a\(index)")
        }
        var refusedB: [String] = []
        for index in 0..<9 {
            refusedB.append(try await setup.browser(setup.b, path: "/push/b\(index)"))
            setup.web.force(.unauthorized, path: "/push/b\(index)")
        }
        let messageA = try await setup.send(setup.a)
        let messageB = try await setup.send(setup.b)
        try await setup.run {
            let a = try await setup.records(messageA).count, b = try await setup.records(messageB).count
            return a == 10 && b == 9
        }
        let recordsA = try await setup.records(messageA), recordsB = try await setup.records(messageB)
        for id in refusedA + refusedB {
            let record = try #require(recordsA[id] ?? recordsB[id])
            #expect(record.state == "error")
            #expect(record.reason == DeliveryPlanner.vapidRefused)
            #expect(try await !setup.invalid(id))
        }
        #expect(try await setup.webPaused(setup.a) == (true, DeliveryPlanner.vapidRefused))
        #expect(try await setup.webPaused(setup.b).paused == false)
        // Paused: a's Apple device gets its push, its browsers wait; b's browsers are still sent to.
        setup.web.clearForced()
        setup.web.clearReceived()
        let phone = try await setup.apple(setup.a, token: String(repeating: "f2", count: 32))
        let second = try await setup.send(setup.a)
        let secondB = try await setup.send(setup.b)
        try await setup.run {
            let a = try await setup.records(second).count, b = try await setup.records(secondB).count
            return a == 1 && b == 9
        }
        #expect(try await setup.records(second)[phone]?.state == "accepted")
        #expect(try await setup.records(secondB).values.allSatisfy { $0.state == "accepted" })
        #expect(setup.web.received().allSatisfy { $0.path.hasPrefix("/push/b") })
    }

    /// Fewer than ten, or not all of a job's, refused: no pause.
    @Test func nineRefusalsOrSomeAcceptedDoNotPause() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        for index in 0..<10 {
            try await setup.browser(setup.a, path: "/push/m\(index)")
            if index > 0 { setup.web.force(.unauthorized, path: "/push/m\(index)") }
        }
        let message = try await setup.send(setup.a)
        try await setup.run { try await setup.records(message).count == 10 }
        #expect(try await setup.records(message).values.filter { $0.reason == DeliveryPlanner.vapidRefused }.count == 9)
        #expect(try await setup.webPaused(setup.a).paused == false)
    }
}
