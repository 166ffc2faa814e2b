import Foundation
import Testing
import Crypto
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Browsers in `POST /notifications`: the send refused without a VAPID subject or with a
/// plaintext too large, the browser switches leaving out their browsers, each app's VAPID key
/// made when first needed, a browser recipient planned onto the Web Push transport beside the
/// Apple devices of the same audience, and an app's web push pause holding only its web pushes.
/// Two apps, so what happens to one is shown not to reach the other.
@Suite struct WebPushSendingTests {
    static let p256 = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    struct Setup {
        let harness: DeliveryHarness
        let b: CreatedApp
        var a: CreatedApp { harness.created }
        var database: PostgresPool { harness.app.services.database }

        func shutdown() async { await harness.shutdown() }

        func post(_ app: CreatedApp, _ body: JSONObject = [:]) async -> TestResponse {
            var json: JSONObject = ["app_id": .string(app.app.id), "included_segments": ["Subscribed Users"],
                                    "headings": ["en": "Kick-off"], "contents": ["en": "The match starts"]]
            for (key, value) in body { json[key] = value }
            return await harness.app.request(.post, "/notifications", headers: .restKey(app.restKey), json: .object(json))
        }

        func send(_ app: CreatedApp, _ body: JSONObject = [:]) async throws -> String {
            let sent = await post(app, body)
            try #require(sent.status == 200, "send: \(sent.text)")
            return try #require(sent.json?.objectValue?["id"]?.stringValue)
        }

        /// A browser subscription of `app` (straight into the table: registration is another part).
        @discardableResult
        func browser(_ app: CreatedApp, _ type: String = "ChromePush") async throws -> String {
            let id = Identifier.make(prefix: "sub", now: harness.app.services.now(), random: KeyMaterial.identifierEntropy())
            try await database.query("""
                INSERT INTO subscriptions (id, app_id, platform, token, web_p256, web_auth, web_type, first_session_at, last_session_at)
                VALUES (\(id), \(app.app.id), 'web', \("http://127.0.0.1:9/push/" + id), \(WebPushSendingTests.p256),
                        \(WebPushSendingTests.auth), \(type), now(), now())
                """)
            return id
        }

        @discardableResult
        func apple(_ app: CreatedApp, token: String) async throws -> String {
            try await harness.app.insertSubscription(appID: app.app.id, token: token)
        }

        /// The recipients queued for `messageID`, whatever their state.
        func queued(_ messageID: String) async throws -> Set<String> {
            let rows = try await database.query("""
                SELECT unnest(subscription_ids) AS id FROM delivery_jobs WHERE message_id = \(messageID)
                """)
            return Set(try rows.map { try $0.decode("id", as: String.self) })
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

        func vapidKey(_ app: CreatedApp) async throws -> (sealed: String?, publicKey: String?) {
            let row = try await database.query("""
                SELECT web_push_vapid_private_key, web_push_vapid_public_key FROM apps WHERE id = \(app.app.id)
                """).firstRow()
            return (try row.decode("web_push_vapid_private_key"), try row.decode("web_push_vapid_public_key"))
        }

        /// Takes the app's VAPID key away, as for an app created before Web Push.
        func forgetVAPIDKey(_ app: CreatedApp) async throws {
            _ = try await database.query("""
                UPDATE apps SET web_push_vapid_private_key = NULL, web_push_vapid_public_key = NULL WHERE id = \(app.app.id)
                """)
        }
    }

    static func setup(subject: String? = "mailto:ops@example.com") async throws -> Setup {
        let harness = try await DeliveryHarness.make(configure: {
            $0.webPushSubject = subject
            $0.webhooksAllowPrivate = true
        })
        let b = try await harness.app.createApp(AppSettings(name: "Other", apnsP8: harness.p8, apnsKeyID: "KEYID00001",
                                                            apnsTeamID: "TEAM000001", apnsBundleID: DeliveryHarness.bundleID))
        return Setup(harness: harness, b: b)
    }

    @Test func aSendReachingBrowsersNeedsAVAPIDSubject() async throws {
        let setup = try await Self.setup(subject: nil)
        defer { Task { await setup.shutdown() } }
        try await setup.browser(setup.a)
        try await setup.apple(setup.a, token: String(repeating: "a1", count: 32))
        let refused = await setup.post(setup.a)
        #expect(refused.status == 400)
        #expect(refused.text.contains("OPENPUSH_WEB_PUSH_SUBJECT"))
        #expect(refused.text.contains("web_push_subject"))
        // Leaving browsers out, it goes; so does a send of an app with no browsers.
        #expect(await setup.post(setup.a, ["isAnyWeb": false]).status == 200)
        try await setup.apple(setup.b, token: String(repeating: "b1", count: 32))
        #expect(await setup.post(setup.b).status == 200)
        // The app's own subject is enough.
        try await setup.database.query("UPDATE apps SET web_push_subject = 'https://example.com/contact' WHERE id = \(setup.a.app.id)")
        #expect(await setup.post(setup.a).status == 200)
    }

    @Test func aPlaintextTooLargeForABrowserIsRefusedAtSendNamingItsSize() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        try await setup.browser(setup.a)
        let large: JSONObject = ["contents": ["en": .string(String(repeating: "x", count: 4000))]]
        let refused = await setup.post(setup.a, large)
        #expect(refused.status == 400)
        #expect(refused.text.contains("bytes"))
        #expect(refused.text.contains("\(WebPushRequest.maxPlaintextBytes)"))
        var withoutWeb = large
        withoutWeb["isAnyWeb"] = false
        #expect(await setup.post(setup.a, withoutWeb).status == 200)
    }

    @Test func theBrowserSwitchesLeaveOutTheirBrowsersOnly() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let chrome = try await setup.browser(setup.a, "ChromePush")
        let firefox = try await setup.browser(setup.a, "FirefoxPush")
        let safari = try await setup.browser(setup.a, "SafariPush")
        let phone = try await setup.apple(setup.a, token: String(repeating: "c1", count: 32))
        let noChrome = try await setup.send(setup.a, ["isChromeWeb": false, "isSafari": false])
        let noWeb = try await setup.send(setup.a, ["isAnyWeb": false])
        let webOnly = try await setup.send(setup.a, ["isIos": false])
        // Each recipient ends with a record (the browsers' once the transport interface gives up).
        try await setup.run {
            let counts = [try await setup.records(noChrome).count, try await setup.records(noWeb).count,
                          try await setup.records(webOnly).count]
            return counts == [2, 1, 3]
        }
        #expect(Set(try await setup.records(noChrome).keys) == [firefox, phone])
        #expect(Set(try await setup.records(noWeb).keys) == [phone])
        #expect(Set(try await setup.records(webOnly).keys) == [chrome, firefox, safari])
    }

    /// One send to Apple devices and browsers: the Apple device's push goes to APNs, the browser's
    /// to the Web Push transport (which refuses its endpoint here), and the VAPID key of an app
    /// from before Web Push (none stored) is made on the way; the other app has none made.
    @Test func aMixedAudienceGoesEachToItsServiceAndTheVAPIDKeyIsMadeWhenFirstNeeded() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let phone = try await setup.apple(setup.a, token: String(repeating: "d1", count: 32))
        let browser = try await setup.browser(setup.a)
        try await setup.apple(setup.b, token: String(repeating: "d2", count: 32))
        try await setup.forgetVAPIDKey(setup.a)
        try await setup.forgetVAPIDKey(setup.b)
        #expect(try await setup.vapidKey(setup.a).sealed == nil)
        let message = try await setup.send(setup.a, ["chrome_web_icon": "https://example.com/i.png"])
        _ = try await setup.send(setup.b)
        try await setup.run { try await setup.records(message).count == 2 }
        let records = try await setup.records(message)
        #expect(records[phone]?.state == "accepted")
        #expect(records[browser]?.state == "error")
        // Its endpoint is no push service's: the transport refuses it (the answers are WebPushDeliveryTests').
        #expect(records[browser]?.reason != nil)
        #expect(setup.harness.simulator.accepted().count == 2)
        let key = try await setup.vapidKey(setup.a)
        let publicKey = try #require(key.publicKey)
        #expect(publicKey.count == 87)
        let pem = try setup.harness.app.services.configuration.secretKeyring.open(try #require(key.sealed))
        #expect(Array(try P256SigningKey(pem: pem).publicKeyDER.suffix(65)) == Base64URL.decode(publicKey))
        #expect(try await setup.vapidKey(setup.b).sealed == nil)
        // Made once: a second send signs with the same key.
        _ = try await setup.send(setup.a)
        try await setup.harness.drain()
        #expect(try await setup.vapidKey(setup.a).publicKey == publicKey)
    }

    /// While an app's web push is paused its browser pushes wait (deferred, not failed), its
    /// Apple pushes go, another app's browser pushes go; a changed subject lifts the pause and
    /// brings the wait forward.
    @Test func aPausedAppHoldsOnlyItsWebPushesUntilItsKeyOrSubjectChanges() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let phone = try await setup.apple(setup.a, token: String(repeating: "e1", count: 32))
        let held = try await setup.browser(setup.a)
        let other = try await setup.browser(setup.b)
        try await setup.database.query("""
            UPDATE apps SET web_push_paused_at = now(), web_push_status_reason = 'WebPushVAPIDRefused', web_push_status_at = now()
            WHERE id = \(setup.a.app.id)
            """)
        let message = try await setup.send(setup.a)
        let otherMessage = try await setup.send(setup.b)
        try await setup.run {
            let mine = try await setup.records(message)[phone] != nil
            let theirs = try await setup.records(otherMessage)[other] != nil
            return mine && theirs
        }
        #expect(try await setup.records(message)[phone]?.state == "accepted")
        #expect(try await setup.records(message)[held] == nil)
        #expect(try await setup.queued(message) == [held])
        let wait = try await setup.database.query("""
            SELECT extract(epoch FROM due_at - now())::float8 AS wait FROM delivery_jobs WHERE message_id = \(message)
            """).firstRow().decode("wait", as: Double.self)
        #expect(wait > 0)

        let resumed = try await setup.database.transaction { connection in
            let before = try AppCredentialStatus.webPushSettings(appID: setup.a.app.id, in: connection)
            // Nothing changed: the pause stays.
            let unchanged = try AppCredentialStatus.resumeWebPush(appID: setup.a.app.id, ifChangedFrom: before, in: connection)
            try connection.query("UPDATE apps SET web_push_subject = 'mailto:new@example.com' WHERE id = \(setup.a.app.id)")
            return (unchanged, try AppCredentialStatus.resumeWebPush(appID: setup.a.app.id, ifChangedFrom: before, in: connection))
        }
        #expect(resumed == (false, true))
        let due = try await setup.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE message_id = \(message) AND due_at <= now()
            """).firstRow().decode("n", as: Int.self)
        #expect(due == 1)
    }
}
