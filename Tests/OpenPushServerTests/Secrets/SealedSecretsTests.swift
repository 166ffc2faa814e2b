import APNs
import Crypto
import Foundation
import HTTPClient
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// `.p8` keys and webhook secrets sealed at rest (`OPENPUSH_SECRET_KEY`): nothing in clear in
/// the rows, pushes still signed and webhooks still signed with the right secret; a key that is
/// missing holds that app only, with its id named; `secrets rotate` re-seals everything.
@Suite struct SealedSecretsTests {
    static let organizationKey = "org-key-for-sealed-secret-tests"
    static let organization: HTTPHeaders = ["Authorization": "Key \(organizationKey)"]
    static let keyA = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!
    static let keyB = SecretKeyring.parseKey(SecretKeyring.generateKeyText())!

    /// Every stored secret, as stored.
    static func storedSecrets(_ app: TestApp) async throws -> [String] {
        try await app.services.database.query("""
            SELECT apns_p8 AS value FROM apps WHERE apns_p8 IS NOT NULL
            UNION ALL SELECT secret FROM webhooks
            UNION ALL SELECT previous_secret FROM webhooks WHERE previous_secret IS NOT NULL
            """).map { try $0.decode("value", as: String.self) }
    }

    /// An app made through `POST /apps` with the harness's `.p8` (which the simulator knows).
    static func createApp(_ app: TestApp, p8: String, name: String) async throws -> (id: String, restKey: String, sdkKey: String) {
        let response = await app.request(.post, "/apps", headers: organization, json: [
            "name": .string(name), "apns_p8": .string(p8), "apns_key_id": "KEYID00001", "apns_team_id": "TEAM000001",
            "apns_bundle_id": .string(DeliveryHarness.bundleID),
        ])
        let body = try #require(response.json?.objectValue, "\(response.text)")
        return (try #require(body["id"]?.stringValue), try #require(body["basic_auth_key"]?.stringValue),
                try #require(body["sdk_key"]?.stringValue))
    }

    /// A webhook made through the route: its id and its secret, shown this once.
    static func createWebhook(_ app: TestApp, appID: String, restKey: String, url: String) async throws -> (id: String, secret: String) {
        let response = await app.request(.post, "/apps/\(appID)/webhooks", headers: .restKey(restKey),
                                         json: ["url": .string(url), "events": ["*"]])
        let body = try #require(response.json?.objectValue, "\(response.text)")
        return (try #require(body["id"]?.stringValue), try #require(body["secret"]?.stringValue))
    }

    /// A device registered for push-to-start, then a Live Activity start to it (REST routes).
    static func startTo(_ app: TestApp, appID: String, restKey: String, sdkKey: String, token: String) async throws {
        _ = try await app.insertSubscription(appID: appID, token: token, externalID: "u-\(token.prefix(6))")
        let registered = await app.request(.post, "/v1/apps/\(appID)/live-activities/push-to-start", headers: .sdkKey(sdkKey),
                                           json: ["token": .string(token), "activity_type": "DeliveryAttributes",
                                                  "push_to_start_token": .string(String(repeating: "5e", count: 32))])
        try #require(registered.status == 200, "\(registered.text)")
        let sent = await app.request(.post, "/apps/\(appID)/activities/activity/DeliveryAttributes", headers: .restKey(restKey), json: [
            "event": "start", "activity_id": "order-1", "name": "n", "event_attributes": ["orderNumber": "1"],
            "event_updates": ["status": "out"], "headings": ["en": "On the way"], "contents": ["en": "Soon"],
            "included_segments": ["Subscribed Users"],
        ])
        try #require(sent.status == 200 || sent.status == 201, "\(sent.text)")
    }

    static func states(_ app: TestApp, appID: String) async throws -> [String: Int] {
        let rows = try await app.services.database.query("""
            SELECT state, count(*)::int AS n FROM deliveries WHERE app_id = \(appID) GROUP BY state
            UNION ALL
            SELECT 'queued', sum(cardinality(subscription_ids))::int FROM delivery_jobs WHERE app_id = \(appID) HAVING count(*) > 0
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode("state", as: String.self), try $0.decode("n", as: Int.self)) })
    }

    static func apnsStatus(_ app: TestApp, appID: String) async throws -> JSONObject {
        let shown = await app.request(.get, "/apps/\(appID)", headers: organization)
        return try #require(shown.json?.objectValue?["apns_status"]?.objectValue)
    }

    static func dispatcher(_ app: TestApp, client: HTTPClient) -> WebhookDispatcher {
        var settings = WebhookDispatcher.Settings()
        settings.allowPrivate = true
        return WebhookDispatcher(services: app.services, client: client, settings: settings,
                                 logger: Logger(label: "test", level: .debug, handler: app.logs), jitter: { 0.5 })
    }

    static func appendEvent(_ app: TestApp, appID: String) async throws {
        let event = OutboundEvent(type: .deliveryAccepted, appID: appID, data: ["notification_id": "n1"])
        try await app.services.database.transaction { try EventOutbox.append([event], in: $0) }
    }

    static func webhookFailure(_ app: TestApp, _ id: String) async throws -> String? {
        try await app.services.database.query("SELECT last_failure_reason FROM webhooks WHERE id = \(id)").firstRow()
            .decode("last_failure_reason")
    }

    /// With a key set, apps and webhooks made through the HTTP routes hold no PEM and no webhook
    /// secret in any column; pushes still pass the simulator's JWT check and webhooks still
    /// verify with the secrets the routes showed.
    @Test func withAKeyNoColumnHoldsASecretInClearAndBothStillSign() async throws {
        let harness = try await DeliveryHarness.make(configure: {
            $0.secretKeyring = SecretKeyring(current: Self.keyA)
            $0.organizationAPIKey = Self.organizationKey
        })
        defer { Task { await harness.shutdown() } }
        let app = harness.app
        let created = try await Self.createApp(app, p8: harness.p8, name: "Sealed")
        // The update route seals too.
        let put = await app.request(.put, "/apps/\(harness.created.app.id)", headers: Self.organization,
                                    json: ["apns_p8": .string(harness.p8)])
        #expect(put.status == 200, "\(put.text)")
        let receiver = try WebhookReceiver()
        let client = try HTTPClient()
        let webhook = try await Self.createWebhook(app, appID: created.id, restKey: created.restKey, url: receiver.url)
        let rotated = await app.request(.post, "/apps/\(created.id)/webhooks/\(webhook.id)/rotate_secret",
                                        headers: .restKey(created.restKey))
        let newSecret = try #require(rotated.json?.objectValue?["secret"]?.stringValue)

        let stored = try await Self.storedSecrets(app)
        #expect(stored.count == 4)  // two .p8 keys, a webhook's secret and its previous one
        let pemBody = harness.p8.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        for value in stored {
            #expect(value.hasPrefix("sealed:v1:\(Self.keyA.id):"), "\(value.prefix(40))")
            #expect(!value.contains("BEGIN PRIVATE KEY") && !value.contains("whsec_"))
            for secret in [webhook.secret, newSecret, String(webhook.secret.dropFirst(6)), String(pemBody.prefix(24))] {
                #expect(!value.contains(secret))
            }
        }

        // The push is signed with the opened .p8: the simulator checks the JWT against its key.
        try await Self.startTo(app, appID: created.id, restKey: created.restKey, sdkKey: created.sdkKey,
                               token: String(repeating: "ab", count: 32))
        try await harness.drain()
        #expect(try await Self.states(app, appID: created.id) == ["accepted": 1])
        #expect(harness.simulator.accepted().count == 1)

        // The webhook is signed with both secrets (the rotated-out one for 24 hours), opened.
        try await Self.appendEvent(app, appID: created.id)
        let dispatcher = Self.dispatcher(app, client: client)
        _ = try await WebhookDispatcherTests.attempt(dispatcher)
        #expect(await receiver.wait { !$0.isEmpty })
        try WebhookDispatcherTests.verify(try #require(receiver.received.last), secrets: [newSecret, webhook.secret])
        await receiver.shutdown()
        await client.shutdown()
    }

    /// A process without the key that sealed an app's `.p8` holds that app's pushes (paused,
    /// reason `SecretSealedWithUnknownKey`, the key id logged) and fails its webhook attempts
    /// naming the key; another app's pushes go out. `secrets rotate` with the old key given
    /// re-seals, resumes the app, and its held push and webhook go out.
    @Test func aMissingKeyHoldsOnlyItsAppNamingTheKeyUntilRotated() async throws {
        // Process A sealed app X's secrets with key A.
        let harness = try await DeliveryHarness.make(configure: {
            $0.secretKeyring = SecretKeyring(current: Self.keyA)
            $0.organizationAPIKey = Self.organizationKey
        })
        defer { Task { await harness.shutdown() } }
        let appX = try await Self.createApp(harness.app, p8: harness.p8, name: "Sealed with A")
        let receiver = try WebhookReceiver()
        let client = try HTTPClient()
        let webhook = try await Self.createWebhook(harness.app, appID: appX.id, restKey: appX.restKey, url: receiver.url)

        // Process B has only key B, and seals app Y with it; same database, same simulator.
        let processB = try TestApp.make(conninfo: harness.app.conninfo, configure: {
            $0.apnsProductionURL = harness.simulator.endpoint
            $0.apnsDevelopmentURL = harness.simulator.endpoint
            $0.secretKeyring = SecretKeyring(current: Self.keyB)
            $0.organizationAPIKey = Self.organizationKey
        })
        let appY = try await Self.createApp(processB, p8: harness.p8, name: "Sealed with B")
        let apnsB = try APNSClient(configuration: processB.services.configuration.apnsClientConfiguration)
        let engineB = DeliveryEngine(services: processB.services, client: apnsB, settings: DeliveryHarness.quickSettings(),
                                     logger: Logger(label: "test", level: .debug, handler: processB.logs))
        func drainB() async throws {
            while try await engineB.runOnce() > 0 {}
        }

        try await Self.startTo(processB, appID: appX.id, restKey: appX.restKey, sdkKey: appX.sdkKey, token: String(repeating: "ab", count: 32))
        try await Self.startTo(processB, appID: appY.id, restKey: appY.restKey, sdkKey: appY.sdkKey, token: String(repeating: "cd", count: 32))
        try await drainB()
        #expect(try await Self.states(processB, appID: appX.id) == ["queued": 1])
        let status = try await Self.apnsStatus(processB, appID: appX.id)
        #expect(status["state"] == "paused" && status["reason"] == "SecretSealedWithUnknownKey")
        #expect(processB.logs.all.contains { $0.metadata["secret.key_id"] == Self.keyA.id && $0.metadata["app.id"] == appX.id })
        // The other app is not held.
        #expect(try await Self.states(processB, appID: appY.id) == ["accepted": 1])
        #expect(try await Self.apnsStatus(processB, appID: appY.id)["state"] == "ok")
        #expect(harness.simulator.accepted().count == 1)

        try await Self.appendEvent(processB, appID: appX.id)
        let dispatcherB = Self.dispatcher(processB, client: client)
        _ = try await WebhookDispatcherTests.attempt(dispatcherB)
        let reason = try #require(try await Self.webhookFailure(processB, webhook.id))
        #expect(reason.contains(Self.keyA.id) && reason.contains("OPENPUSH_SECRET_KEYS_OLD"), "\(reason)")
        #expect(receiver.received.isEmpty)

        // B is given A as an old key and re-seals: everything under B, X resumed.
        let rotation = try await SealedSecrets.rotate(keyring: SecretKeyring(current: Self.keyB, old: [Self.keyA]),
                                                      in: processB.services.database)
        // X's and the harness's own app's .p8 and VAPID key and X's webhook secret; Y's .p8 and VAPID key were
        // under B already.
        #expect(rotation.resealedKeys == 2 && rotation.resealedVAPIDKeys == 2 && rotation.resealedWebhookSecrets == 1)
        #expect(rotation.unchanged == 2)
        #expect(rotation.resumedApps == 1)
        #expect(try await Self.storedSecrets(processB).allSatisfy { $0.hasPrefix("sealed:v1:\(Self.keyB.id):") })
        try await drainB()
        #expect(try await Self.states(processB, appID: appX.id) == ["accepted": 1])
        #expect(harness.simulator.accepted().count == 2)
        try await processB.services.database.query("UPDATE webhooks SET next_attempt_at = now() WHERE id = \(webhook.id)")
        _ = try await WebhookDispatcherTests.attempt(dispatcherB)
        #expect(await receiver.wait { !$0.isEmpty })
        try WebhookDispatcherTests.verify(try #require(receiver.received.last), secrets: [webhook.secret])

        await engineB.stop()
        await apnsB.shutdown()
        await receiver.shutdown()
        await client.shutdown()
    }

    /// Secrets stored before a key was set are sealed by `secrets rotate`; a rotation that meets
    /// a value it cannot open changes nothing and names the key; with no key there is nothing to
    /// seal with.
    @Test func rotationSealsValuesInClearAndIsAllOrNothing() async throws {
        let clear = try await TestApp.make(configure: { $0.organizationAPIKey = Self.organizationKey })
        let pem = try P256SigningKey.generatePEM()
        let created = try await Self.createApp(clear, p8: pem, name: "Before the key")
        let webhook = try await Self.createWebhook(clear, appID: created.id, restKey: created.restKey,
                                                   url: "http://127.0.0.1:9/hooks")
        #expect(Set(try await Self.storedSecrets(clear)) == [pem, webhook.secret])

        let database = clear.services.database
        await #expect(throws: SealedSecrets.RotationRefusal.self) { try await SealedSecrets.rotate(keyring: SecretKeyring(), in: database) }
        let keyringA = SecretKeyring(current: Self.keyA)
        let first = try await SealedSecrets.rotate(keyring: keyringA, in: database)
        #expect(first == SealedSecrets.Rotation(keyID: Self.keyA.id, resealedKeys: 1, resealedWebhookSecrets: 1, resealedVAPIDKeys: 1,
                                                unchanged: 0))
        let sealed = try await Self.storedSecrets(clear)
        #expect(sealed.allSatisfy { $0.hasPrefix("sealed:v1:\(Self.keyA.id):") })
        #expect(Set(try sealed.map { try keyringA.open($0) }) == [pem, webhook.secret])
        // Again: nothing to do.
        #expect(try await SealedSecrets.rotate(keyring: keyringA, in: database).unchanged == 3)

        // Key B without A: refused, naming A, nothing changed.
        do {
            _ = try await SealedSecrets.rotate(keyring: SecretKeyring(current: Self.keyB), in: database)
            Issue.record("a rotation without the key that sealed the values went through")
        } catch let refusal as SealedSecrets.RotationRefusal {
            #expect(refusal.description.contains(Self.keyA.id), "\(refusal)")
        }
        #expect(try await Self.storedSecrets(clear) == sealed)
    }
}
