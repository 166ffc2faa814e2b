import Foundation
import Testing
import Crypto
import FCMSimulator
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Android devices reached through FCM end to end: `POST /notifications` → planner → FCM
/// simulator (and APNs simulator for the Apple devices of the same audience) → records, dead
/// tokens, events and the app's FCM pause. Two apps with FCM service accounts, so what one app's
/// FCM answers do is shown not to reach the other.
@Suite struct FCMDeliveryTests {
    static let organizationKey = "org-key-for-fcm-delivery-tests"

    struct Account {
        var simulated: FCMSimulator.ServiceAccount
        var account: FCMServiceAccount

        init(project: String) throws {
            let pem = try RSASigningKey.generatePEM()
            let email = "firebase-adminsdk@\(project).iam.gserviceaccount.com"
            simulated = FCMSimulator.ServiceAccount(clientEmail: email, privateKeyID: "kid-\(project)", projectID: project,
                                                    privateKeyPEM: pem)
            account = FCMServiceAccount(projectID: project, privateKeyID: "kid-\(project)", privateKey: pem, clientEmail: email)
        }
    }

    struct Setup {
        let harness: DeliveryHarness
        let fcm: FCMSimulator
        /// Apple and Android, project-a; and another app, Android only (project-b).
        let a: CreatedApp
        let b: CreatedApp
        /// A third account the simulator knows, for replacing a's.
        let spare: Account
        var database: PostgresPool { harness.app.services.database }

        func shutdown() async {
            await harness.shutdown()
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

        /// An Android device of `app` (engineer-independent: straight into the table).
        @discardableResult
        func android(_ app: CreatedApp, token: String) async throws -> String {
            let id = Identifier.make(prefix: "sub", now: harness.app.services.now(), random: KeyMaterial.identifierEntropy())
            try await database.query("""
                INSERT INTO subscriptions (id, app_id, platform, token, first_session_at, last_session_at)
                VALUES (\(id), \(app.app.id), 'android', \(token), now(), now())
                """)
            return id
        }

        func apple(_ app: CreatedApp, token: String) async throws -> String {
            try await harness.app.insertSubscription(appID: app.app.id, token: token)
        }

        /// Runs the engine until `done` holds (retries come due a fraction of a second later).
        func run(until done: @escaping () async throws -> Bool) async throws {
            for _ in 0..<600 {
                try await harness.drain()
                if try await done() { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("the deliveries did not settle")
        }

        /// Subscription id → (state, error reason, FCM message name) of its records.
        func records(_ messageID: String) async throws -> [String: (state: String, reason: String?, name: String?)] {
            let rows = try await database.query("""
                SELECT d.subscription_id, d.state, d.error_reason, r.fcm_message_name
                FROM deliveries d LEFT JOIN delivery_rows r ON r.message_id = d.message_id AND r.subscription_id = d.subscription_id
                WHERE d.message_id = \(messageID)
                """)
            var records: [String: (state: String, reason: String?, name: String?)] = [:]
            for row in rows {
                records[try row.decode("subscription_id")] = (try row.decode("state"), try row.decode("error_reason"),
                                                               try row.decode("fcm_message_name"))
            }
            return records
        }

        func waiting() async throws -> Int {
            try await database.query("SELECT COALESCE(sum(cardinality(subscription_ids)), 0)::int AS n FROM delivery_jobs")
                .firstRow().decode("n")
        }

        func appJSON(_ app: CreatedApp) async throws -> JSONObject {
            let shown = await harness.app.request(.get, "/apps/\(app.app.id)", headers: .restKey(FCMDeliveryTests.organizationKey))
            return try #require(shown.json?.objectValue)
        }

        func putFCMAccount(_ app: CreatedApp, _ account: Account) async throws {
            let keyFile = JSONValue.object([
                "type": "service_account", "project_id": .string(account.account.projectID),
                "private_key_id": .string(account.account.privateKeyID), "private_key": .string(account.account.privateKey),
                "client_email": .string(account.account.clientEmail),
            ]).serialized
            let response = await harness.app.request(.put, "/apps/\(app.app.id)", headers: .restKey(FCMDeliveryTests.organizationKey),
                                                     json: ["fcm_service_account": .string(keyFile)])
            try #require(response.status == 200, "PUT: \(response.text)")
        }
    }

    static func setup() async throws -> Setup {
        let (accountA, accountB, spare) = (try Account(project: "project-a"), try Account(project: "project-b"),
                                           try Account(project: "project-c"))
        let fcm = try FCMSimulator(.init(serviceAccounts: [accountA.simulated, accountB.simulated, spare.simulated]))
        try fcm.start()
        let harness = try await DeliveryHarness.make(configure: {
            $0.fcmURL = fcm.endpoint
            $0.fcmTokenURL = fcm.tokenURL
            $0.organizationAPIKey = organizationKey
        })
        var settingsA = AppSettings(name: "Both", apnsP8: harness.p8, apnsKeyID: "KEYID00001", apnsTeamID: "TEAM000001",
                                    apnsBundleID: DeliveryHarness.bundleID)
        settingsA.fcmServiceAccount = accountA.account
        var settingsB = AppSettings(name: "Android")
        settingsB.fcmServiceAccount = accountB.account
        let a = try await harness.app.createApp(settingsA)
        let b = try await harness.app.createApp(settingsB)
        return Setup(harness: harness, fcm: fcm, a: a, b: b, spare: spare)
    }

    // MARK: passes with the FCM transport stub too (planning and pause bookkeeping)

    /// An app without FCM credentials: its Android devices' records end `MissingFCMCredentials`
    /// at once (not held: the app shows no `fcm_status`), its Apple devices get their pushes.
    @Test func anAppWithoutFCMCredentialsRefusesItsAndroidDevicesOnly() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let apple = setup.harness.created
        let phone = try await setup.apple(apple, token: String(repeating: "a1", count: 32))
        let droid = try await setup.android(apple, token: "fcm-token-of-an-app-without-fcm")
        let message = try await setup.send(apple)
        try await setup.run { try await setup.waiting() == 0 }
        let records = try await setup.records(message)
        #expect(records[phone]?.state == "accepted")
        #expect(records[droid]?.state == "error")
        #expect(records[droid]?.reason == DeliveryPlanner.missingFCMCredentials)
        #expect(setup.fcm.counters.sends == 0)
        #expect(try await setup.appJSON(apple)["fcm_status"] == nil)
        #expect(try await setup.appJSON(setup.a)["fcm_status"]?.objectValue?["state"] == "ok")
    }

    /// While an app's FCM sending is paused its Android pushes wait (deferred, not failed), its
    /// Apple pushes go, another app is untouched; `PUT /apps` with a new service account lifts
    /// the pause and brings the wait forward.
    @Test func aPausedFCMAppHoldsOnlyItsAndroidPushesUntilItsAccountChanges() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let phone = try await setup.apple(setup.a, token: String(repeating: "b2", count: 32))
        let droid = try await setup.android(setup.a, token: "held-android-token")
        try await setup.database.query("""
            UPDATE apps SET fcm_paused_at = now(), fcm_status_reason = 'UNAUTHENTICATED', fcm_status_at = now()
            WHERE id = \(setup.a.app.id)
            """)
        let status = try #require(try await setup.appJSON(setup.a)["fcm_status"]?.objectValue)
        #expect(status["state"] == "paused")
        #expect(status["reason"] == "UNAUTHENTICATED")
        #expect(try await setup.appJSON(setup.a)["apns_status"]?.objectValue?["state"] == "ok")
        let message = try await setup.send(setup.a)
        try await setup.run { try await setup.records(message)[phone] != nil }
        try await setup.harness.drain()
        #expect(try await setup.records(message)[phone]?.state == "accepted")
        #expect(try await setup.records(message)[droid] == nil)
        #expect(try await setup.waiting() == 1)
        let due = try await setup.database.query("""
            SELECT extract(epoch FROM due_at - now())::float8 AS wait FROM delivery_jobs
            """).firstRow().decode("wait", as: Double.self)
        #expect(due > 0)

        try await setup.putFCMAccount(setup.a, setup.spare)
        #expect(try await setup.appJSON(setup.a)["fcm_status"]?.objectValue?["state"] == "ok")
        // The lifted pause made the held push due now.
        let now = try await setup.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE due_at <= now()
            """).firstRow().decode("n", as: Int.self)
        #expect(now == 1)
    }

    // MARK: need the FCM transport (the stub answers nothing)

    /// One send to a mixed audience: each device gets one push, on its own service; an Android
    /// record keeps FCM's message name, shown by the deliveries route.
    @Test func aMixedAudienceGetsOnePushPerDeviceOnTheRightService() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let phones = [try await setup.apple(setup.a, token: String(repeating: "c3", count: 32)),
                      try await setup.apple(setup.a, token: String(repeating: "c4", count: 32))]
        let droids = [try await setup.android(setup.a, token: "android-token-1"),
                      try await setup.android(setup.a, token: "android-token-2")]
        let message = try await setup.send(setup.a, ["data": ["match": "42"], "android_channel_id": "sports"])
        try await setup.run { try await setup.waiting() == 0 }
        #expect(setup.harness.simulator.accepted().map(\.deviceToken).sorted()
                == [String(repeating: "c3", count: 32), String(repeating: "c4", count: 32)])
        let sent = setup.fcm.accepted()
        #expect(sent.map(\.token).sorted() == ["android-token-1", "android-token-2"])
        #expect(Set(sent.map(\.projectID)) == ["project-a"])
        let first = try #require(sent.first { $0.token == "android-token-1" })
        #expect(first.message["notification"] == ["title": "Kick-off", "body": "The match starts"])
        #expect(first.message["data"] == ["match": "42", "openpush_notification_id": .string(message),
                                          "openpush_subscription_id": .string(droids[0])])
        #expect(first.message["android"]?.objectValue?["notification"] == ["channel_id": "sports"])
        let records = try await setup.records(message)
        for phone in phones { #expect(records[phone]?.state == "accepted") }
        for droid in droids { #expect(records[droid]?.state == "accepted") }
        #expect(records[droids[0]]?.name == first.name)

        let listed = await setup.harness.app.request(.get, "/notifications/\(message)/deliveries",
                                                     headers: .restKey(setup.a.restKey), query: ["app_id": setup.a.app.id])
        let items = try #require(listed.json?.objectValue?["deliveries"]?.arrayValue)
        let rows = items.compactMap { $0.objectValue }
        let shown = try #require(rows.first { $0["subscription_id"] == .string(droids[0]) })
        #expect(shown["fcm_message_name"] == .string(first.name))
        #expect(rows.first { $0["subscription_id"] == .string(phones[0]) }?["fcm_message_name"] == .null)
    }

    /// `UNREGISTERED`: no retry, the device's token is invalid (no more pushes), a
    /// `token.invalidated` event — in that app only.
    @Test func anUnregisteredTokenUnsubscribesTheDevice() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let gone = try await setup.android(setup.a, token: "uninstalled-token")
        let kept = try await setup.android(setup.b, token: "uninstalled-token")
        setup.fcm.unregister(token: "uninstalled-token")
        let message = try await setup.send(setup.a)
        try await setup.run { try await setup.waiting() == 0 }
        let record = try #require(try await setup.records(message)[gone])
        #expect(record.state == "error")
        #expect(record.reason == "UNREGISTERED")
        let invalid = try await setup.database.query("""
            SELECT id, token_invalid_at IS NOT NULL AS invalid FROM subscriptions WHERE platform = 'android'
            """)
        let states = Dictionary(uniqueKeysWithValues: try invalid.map { (try $0.decode("id", as: String.self), try $0.decode("invalid", as: Bool.self)) })
        #expect(states == [gone: true, kept: false])
        let events = try await setup.database.query("""
            SELECT app_id, data::text AS data FROM events WHERE type = 'token.invalidated'
            """)
        #expect(events.count == 1)
        #expect(try events.firstRow().decode("app_id", as: String.self) == setup.a.app.id)
        #expect(try events.firstRow().decode("data", as: String.self).contains(gone))
        // Sent again, the device is no longer a recipient: nothing goes to FCM.
        let sends = setup.fcm.counters.sends
        let again = try await setup.send(setup.a)
        try await setup.run { try await setup.waiting() == 0 }
        #expect(try await setup.records(again)[gone]?.state != "accepted")
        #expect(setup.fcm.counters.sends == sends)
    }

    /// A `400 INVALID_ARGUMENT` about the message (not its token): that push ends `error` with
    /// FCM's code and is not tried again; the device stays subscribed and the next send reaches it.
    @Test func anInvalidMessageFailsThatPushOnlyWithoutARetry() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let droid = try await setup.android(setup.a, token: "strict-token")
        setup.fcm.injectFailure(.invalidArgument, count: 1)
        let refused = try await setup.send(setup.a)
        try await setup.run { try await setup.records(refused)[droid] != nil }
        let record = try #require(try await setup.records(refused)[droid])
        #expect(record.state == "error" && record.reason == "INVALID_ARGUMENT")
        #expect(try await setup.database.query("SELECT attempts FROM deliveries WHERE message_id = \(refused)")
            .firstRow().decode("attempts", as: Int.self) == 1)
        #expect(try await setup.database.query("""
            SELECT token_invalid_at IS NULL AS valid FROM subscriptions WHERE id = \(droid)
            """).firstRow().decode("valid", as: Bool.self))
        let next = try await setup.send(setup.a)
        try await setup.run { try await setup.records(next)[droid] != nil }
        #expect(try await setup.records(next)[droid]?.state == "accepted")
    }

    /// `503` then `200`: retried with the backoff, then accepted; `429` with `Retry-After`
    /// likewise, not before it.
    @Test func unavailableAndQuotaAreRetriedThenAccepted() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let droid = try await setup.android(setup.a, token: "busy-token")
        setup.fcm.injectFailure(.unavailable, count: 1)
        let first = try await setup.send(setup.a)
        try await setup.run { try await setup.records(first)[droid] != nil }
        #expect(try await setup.records(first)[droid]?.state == "accepted")
        #expect(try await setup.database.query("SELECT attempts FROM deliveries WHERE message_id = \(first)")
            .firstRow().decode("attempts", as: Int.self) == 2)

        setup.fcm.injectFailure(.quotaExceeded, count: 1, retryAfter: 2)
        let second = try await setup.send(setup.a)
        try await setup.run { try await setup.waiting() > 0 || setup.fcm.counters.sends >= 3 }
        let started = Date()
        try await setup.run { try await setup.records(second)[droid] != nil }
        #expect(try await setup.records(second)[droid]?.state == "accepted")
        #expect(Date().timeIntervalSince(started) >= 1.5, "retried before Retry-After")
    }

    /// A revoked access token: FCM's `401` makes the transport fetch a new one and send again.
    @Test func aRevokedAccessTokenIsFetchedAgain() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let droid = try await setup.android(setup.a, token: "revoked-token-device")
        let first = try await setup.send(setup.a)
        try await setup.run { try await setup.waiting() == 0 }
        #expect(try await setup.records(first)[droid]?.state == "accepted")
        setup.fcm.revokeAccessTokens()
        let second = try await setup.send(setup.a)
        try await setup.run { try await setup.waiting() == 0 }
        #expect(try await setup.records(second)[droid]?.state == "accepted")
        #expect(setup.fcm.counters.accessTokensIssued >= 2)
        #expect(try await setup.appJSON(setup.a)["fcm_status"]?.objectValue?["state"] == "ok")
    }

    /// FCM keeps refusing the app's account: its FCM sending pauses (shown as `fcm_status`), its
    /// Android pushes wait, its Apple pushes and the other app's Android pushes go; a new
    /// account sends the held pushes.
    @Test func aRefusedAccountPausesThatAppsFCMOnlyAndANewOneSendsTheHeldPushes() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let phone = try await setup.apple(setup.a, token: String(repeating: "d5", count: 32))
        let droid = try await setup.android(setup.a, token: "paused-app-device")
        let other = try await setup.android(setup.b, token: "other-app-device")
        setup.fcm.injectFailure(.unauthenticated, count: 1_000)
        let message = try await setup.send(setup.a)
        try await setup.run { try await setup.appJSON(setup.a)["fcm_status"]?.objectValue?["state"] == "paused" }
        try await setup.run { try await setup.records(message)[phone] != nil }
        #expect(try await setup.records(message)[phone]?.state == "accepted")
        #expect(try await setup.records(message)[droid] == nil, "held, not failed")
        #expect(try await setup.appJSON(setup.a)["apns_status"]?.objectValue?["state"] == "ok")

        _ = setup.fcm.control(method: "DELETE", path: "/failures", body: [])
        let elsewhere = try await setup.send(setup.b)
        try await setup.run { try await setup.records(elsewhere)[other] != nil }
        #expect(try await setup.records(elsewhere)[other]?.state == "accepted")
        #expect(try await setup.records(message)[droid] == nil, "still held")

        try await setup.putFCMAccount(setup.a, setup.spare)
        try await setup.run { try await setup.records(message)[droid] != nil }
        #expect(try await setup.records(message)[droid]?.state == "accepted")
        #expect(setup.fcm.accepted().contains { $0.token == "paused-app-device" && $0.projectID == "project-c" })
    }

    /// A template's texts, in the device's language with its tags rendered by Liquid, reach an
    /// Android device as they reach an Apple one.
    @Test func aTemplateReachesAndroidInTheDevicesLanguageWithLiquid() async throws {
        let setup = try await Self.setup()
        defer { Task { await setup.shutdown() } }
        let droid = try await setup.android(setup.a, token: "templated-device")
        try await setup.database.query("""
            UPDATE subscriptions SET language = 'fr', tags = '{"first_name": "Ana"}'::jsonb WHERE id = \(droid)
            """)
        let template = try await TemplatesRoutesTests.create(setup.harness.app, setup.a, [
            "name": "welcome", "headings": ["en": "Hello {{ first_name }}", "fr": "Bonjour {{ first_name }}"],
            "contents": ["en": "Welcome aboard", "fr": "Bienvenue"],
        ])
        let templateID = try #require(template["id"]?.stringValue)
        let sent = await setup.harness.app.request(.post, "/notifications", headers: .restKey(setup.a.restKey), json: [
            "app_id": .string(setup.a.app.id), "included_segments": ["Subscribed Users"], "template_id": .string(templateID),
        ])
        try #require(sent.status == 200, "send: \(sent.text)")
        try await setup.run { try await setup.waiting() == 0 }
        let message = try #require(setup.fcm.accepted().first { $0.token == "templated-device" })
        #expect(message.message["notification"] == ["title": "Bonjour Ana", "body": "Bienvenue"])
    }
}
