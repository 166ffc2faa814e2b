import Crypto
import Foundation
import HTTPClient
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// Every event type, written by its real producer (the public routes and the delivery engine
/// against the APNs simulator), reaches a local receiver through the webhook dispatcher: an
/// endpoint created through `POST /apps/{id}/webhooks` with `["*"]`, each POST's signature checked
/// from the raw bytes with HMAC-SHA256, and each event's `data` as the event types table of
/// `docs/api/events.md` gives it.
@Suite struct WebhookEveryEventTypeTests {
    /// Accepted by the simulator.
    static let good = String(repeating: "c1", count: 32)
    /// 400 BadDeviceToken: a permanent rejection, and a dead token.
    static let bad = "bad0" + String(repeating: "c2", count: 30)
    /// 410 Unregistered: a dead token.
    static let dead = "dead" + String(repeating: "c3", count: 30)
    /// 500 InternalServerError: retried until the harness's 3 attempts are used up, then given up.
    static let flaky = "5000" + String(repeating: "c4", count: 30)
    /// A Live Activity update token APNs answers 410 Unregistered.
    static let deadUpdate = "dead" + String(repeating: "e9", count: 30)

    static let allTypes: Set<String> = ["delivery.accepted", "delivery.failed", "token.invalidated", "notification.completed",
                                        "live_activity.registered", "live_activity.ended", "app.credentials_expiring",
                                        "click", "ping"]

    /// Runs the engine until no job is left, making each waiting retry due at once instead of
    /// waiting out its backoff.
    static func settle(_ harness: DeliveryHarness) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            try await harness.drain()
            let left: Int = try await harness.app.services.database.query("""
                SELECT (count(*) + (SELECT count(*) FROM messages WHERE expansion = 'pending'))::int AS n FROM delivery_jobs
                """).firstRow().decode("n")
            if left == 0 { return }
            try #require(ContinuousClock.now < deadline, "delivery jobs were left after 60 s")
            try await DeliveryGuaranteesTests.retriesComeDue(harness)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func apnsID(_ harness: DeliveryHarness, _ messageID: String, _ subscriptionID: String) async throws -> String {
        try await harness.app.services.database.query("""
            SELECT \(DeliveryRecord.storedAPNSID)::text AS id FROM deliveries WHERE message_id = \(messageID) AND subscription_id = \(subscriptionID)
            """).firstRow().decode("id")
    }

    /// Checks `OpenPush-Signature` as a receiver would: `t` and `v1` taken from the header, HMAC-SHA256
    /// keyed with the secret over `"<t>." + raw body`, and `t` a current time.
    static func verifySignature(_ post: WebhookReceiver.Received, secret: String, notBefore: Double) throws {
        let header = try #require(post.headers["OpenPush-Signature"])
        var timestamps: [String] = []
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            try #require(pair.count == 2, "malformed part in \(header)")
            switch pair[0] {
            case "t": timestamps.append(pair[1])
            case "v1": signatures.append(pair[1])
            default: Issue.record("unexpected part \(pair[0]) in \(header)")
            }
        }
        // No rotation happened: one timestamp, one signature.
        #expect(timestamps.count == 1 && signatures.count == 1, "\(header)")
        let t = try #require(timestamps.first)
        let seconds = try #require(Double(t), "t is not a number: \(header)")
        #expect(seconds >= notBefore.rounded(.down) && seconds <= Date().timeIntervalSince1970 + 1, "t \(t) is not the send's time")
        let expected = HMACSHA256.authenticationCode(key: Array(secret.utf8), message: Array("\(t).".utf8) + post.body).hexString
        #expect(signatures == [expected], "\(header)")
        // The check is not vacuous: the same header does not verify another body.
        var tampered = post.body
        tampered[tampered.count / 2] ^= 0x01
        #expect(HMACSHA256.authenticationCode(key: Array(secret.utf8), message: Array("\(t).".utf8) + tampered).hexString != expected)
    }

    @Test func everyTypeFromItsProducerArrivesSignedWithItsData() async throws {
        let harness = try await DeliveryHarness.make()
        let receiver = try WebhookReceiver()
        let client = try HTTPClient()
        let setup = WebhookDispatcherTests.Setup(app: harness.app, appID: harness.created.app.id,
                                                 restKey: harness.created.restKey, client: client)
        let dispatcher = WebhookDispatcherTests.dispatcher(setup)
        do {
            try await Self.drive(harness, receiver: receiver, dispatcher: dispatcher)
        } catch {
            await dispatcher.stop()
            await receiver.shutdown()
            await client.shutdown()
            await harness.shutdown()
            throw error
        }
        await dispatcher.stop()
        await receiver.shutdown()
        await client.shutdown()
        await harness.shutdown()
    }

    static func drive(_ harness: DeliveryHarness, receiver: WebhookReceiver, dispatcher: WebhookDispatcher) async throws {
        let started = Date().timeIntervalSince1970
        let appID = harness.created.app.id
        let rest = HTTPHeaders.restKey(harness.created.restKey)
        let sdk = HTTPHeaders.sdkKey(harness.created.sdkKey)
        let database = harness.app.services.database

        // The endpoint, through the public route: every type, to the local receiver.
        let made = await harness.app.request(.post, "/apps/\(appID)/webhooks", headers: rest,
                                             json: ["url": .string(receiver.url), "events": ["*"], "description": "every type"])
        #expect(made.status == 201, "\(made.text)")
        let webhookID = try #require(made.json?.objectValue?["id"]?.stringValue)
        let secret = try #require(made.json?.objectValue?["secret"]?.stringValue)
        dispatcher.start()

        // A notification: one device accepted, one rejected for good, one dead, one given up after its retries.
        let device = try await harness.app.insertSubscription(appID: appID, token: Self.good)
        let bad = try await harness.app.insertSubscription(appID: appID, token: Self.bad)
        let dead = try await harness.app.insertSubscription(appID: appID, token: Self.dead)
        let flaky = try await harness.app.insertSubscription(appID: appID, token: Self.flaky)
        let messageID = try await NotificationOpenedTests.send(harness)
        try await Self.settle(harness)
        let attempts: Int = try await database.query("""
            SELECT attempts FROM deliveries WHERE message_id = \(messageID) AND subscription_id = \(flaky)
            """).firstRow().decode("attempts")
        #expect(attempts == DeliveryHarness.quickSettings().retryPolicy.maxAttempts, "the 500 was not retried until given up")
        // What `GET /notifications/{id}` says once the message is final (before any tap changes its clicks).
        let view = await DeliveryGuaranteesTests.view(harness, messageID)
        #expect(view["remaining"] == 0, "\(view)")

        // A tap, and a second one by the same device.
        #expect(await NotificationOpenedTests.tap(harness, messageID, token: Self.good).status == 200)
        #expect(await NotificationOpenedTests.tap(harness, messageID, token: Self.good).status == 200)

        // Live Activities: registered, refreshed, pushed, tapped, and ended every way.
        try await database.query("UPDATE apps SET live_activity_update_interval_seconds = 0 WHERE id = \(appID)")
        func register(_ activityID: String, _ updateToken: String) async throws {
            let response = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities", headers: sdk, json: [
                "token": .string(Self.good), "activity_id": .string(activityID), "activity_type": "Score",
                "update_token": .string(updateToken)])
            try #require(response.status == 200, "register \(activityID): \(response.text)")
        }
        try await register("game-1", String(repeating: "e1", count: 32))
        try await register("game-1", String(repeating: "e2", count: 32))
        let update1 = try await DeliveryGuaranteesTests.update(harness, harness.created, activityID: "game-1", score: 1)
        try await Self.settle(harness)
        let tapped = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities/game-1/click", headers: sdk,
                                               json: ["token": .string(Self.good)])
        #expect(tapped.status == 200, "\(tapped.text)")
        let endedByDevice = await harness.app.request(.post, "/v1/apps/\(appID)/live-activities/game-1/end", headers: sdk,
                                                      json: ["token": .string(Self.good)])
        #expect(endedByDevice.status == 200, "\(endedByDevice.text)")
        try await register("game-2", Self.deadUpdate)
        let update2 = try await DeliveryGuaranteesTests.update(harness, harness.created, activityID: "game-2", score: 2)
        try await Self.settle(harness)
        try await register("game-3", String(repeating: "e3", count: 32))
        let remoteEnd = await harness.app.request(.post, "/apps/\(appID)/live_activities/game-3/notifications", headers: rest,
                                                  json: ["event": "end", "name": "n", "event_updates": ["home": 3]])
        #expect(remoteEnd.status == 201, "\(remoteEnd.text)")
        let endMessage = try #require(remoteEnd.json?.objectValue?["id"]?.stringValue)
        try await Self.settle(harness)
        try await register("game-4", String(repeating: "e4", count: 32))
        let retired = await harness.app.request(.post, "/v1/apps/\(appID)/subscriptions/retire", headers: sdk,
                                                json: ["token": .string(Self.good)])
        #expect(retired.status == 200, "\(retired.text)")

        // The app moves to an APNs certificate that expires in twenty days; the periodic check
        // (run with the maintenance) warns once, however often it runs.
        let certificates = try await TestCertificates.make()
        let issued = try await certificates.issue(bundleID: DeliveryHarness.bundleID, topics: [DeliveryHarness.bundleID], days: 20)
        let p12 = Data(try await certificates.pkcs12(issued, password: "pw")).base64EncodedString()
        let certificate = try AppFields.readP12File(p12, password: "pw").get()
        try await database.withConnection { connection in
            try AppStore.setCertificate(certificate, appID: appID, sealing: harness.app.services.configuration.secretKeyring,
                                        in: connection)
        }
        for _ in 0..<2 {
            try await CertificateExpiryCheck.run(now: Date().timeIntervalSince1970, in: database)
        }

        // Last, the test route's ping: written after every other event, so sent after them.
        let ping = await harness.app.request(.post, "/apps/\(appID)/webhooks/\(webhookID)/test", headers: rest)
        #expect(ping.status == 202, "\(ping.text)")
        let pingID = try #require(ping.json?.objectValue?["event_id"]?.stringValue)

        let arrived = await receiver.wait(timeout: .seconds(90)) { $0.flatMap(\.eventIDs).contains(pingID) }
        try #require(arrived, "the ping did not arrive: \(receiver.received.count) POSTs, \(receiver.eventIDs.count) events")

        // Every POST: JSON to this endpoint, signed with its secret, at most 100 events.
        let posts = receiver.received
        var events: [JSONObject] = []
        for post in posts {
            #expect(post.headers["Content-Type"] == "application/json")
            #expect(post.headers["OpenPush-Webhook-Id"] == webhookID)
            try Self.verifySignature(post, secret: secret, notBefore: started)
            let body = try #require(try JSONValue.parse(post.body).objectValue)
            #expect(Array(body.keys) == ["events"])
            let batch = try #require(body["events"]?.arrayValue).compactMap(\.objectValue)
            #expect(!batch.isEmpty && batch.count <= 100)
            events += batch
        }
        // At least once: a repeat (same id) would be legitimate; each event is checked once.
        var seen: Set<String> = []
        events = events.filter { seen.insert($0["id"]?.stringValue ?? "").inserted }

        let iso8601Milliseconds = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#)
        for event in events {
            #expect(Set(event.keys) == ["id", "type", "created_at", "app_id", "data"], "\(event)")
            #expect(event["id"]?.stringValue?.hasPrefix("evt_") == true, "\(event)")
            #expect(event["app_id"] == .string(appID))
            #expect(event["created_at"]?.stringValue?.wholeMatch(of: iso8601Milliseconds) != nil, "\(event)")
        }
        func data(_ type: String) -> [JSONObject] {
            events.filter { $0["type"]?.stringValue == type }.compactMap { $0["data"]?.objectValue }
        }
        #expect(Set(events.compactMap { $0["type"]?.stringValue }) == Self.allTypes)

        // The same events, with the same ids and in the same order, as the feed (which has no pings).
        let feed = await harness.app.request(.get, "/apps/\(appID)/events", headers: rest, query: ["limit": "1000"])
        #expect(feed.status == 200, "\(feed.text)")
        let feedIDs = (feed.json?.objectValue?["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["id"]?.stringValue }
        #expect(events.compactMap { $0["id"]?.stringValue }.filter { $0 != pingID } == feedIDs)

        // delivery.accepted: the notification's good device, and the Live Activity pushes to its update tokens.
        let acceptedExpected: [JSONObject] = [
            EventData.delivery(notificationID: messageID, subscriptionID: device, tokenKind: .device,
                               apnsID: try await Self.apnsID(harness, messageID, device)),
            EventData.delivery(notificationID: update1, subscriptionID: device, tokenKind: .update,
                               apnsID: try await Self.apnsID(harness, update1, device)),
            EventData.delivery(notificationID: endMessage, subscriptionID: device, tokenKind: .update,
                               apnsID: try await Self.apnsID(harness, endMessage, device)),
        ]
        #expect(data("delivery.accepted") == acceptedExpected)
        #expect(acceptedExpected.allSatisfy { Set($0.keys) == ["notification_id", "subscription_id", "token_kind", "apns_id"] })

        // delivery.failed: the same fields plus APNs' reason and status, for permanent rejections
        // and for the delivery given up after its retries.
        let failed = data("delivery.failed")
        #expect(failed.count == 4, "\(failed)")
        #expect(Set(failed) == [
            ["notification_id": .string(messageID), "subscription_id": .string(bad), "token_kind": "device",
             "apns_id": .string(try await Self.apnsID(harness, messageID, bad)), "reason": "BadDeviceToken", "status": 400],
            ["notification_id": .string(messageID), "subscription_id": .string(dead), "token_kind": "device",
             "apns_id": .string(try await Self.apnsID(harness, messageID, dead)), "reason": "Unregistered", "status": 410],
            ["notification_id": .string(messageID), "subscription_id": .string(flaky), "token_kind": "device",
             "apns_id": .string(try await Self.apnsID(harness, messageID, flaky)), "reason": "InternalServerError", "status": 500],
            ["notification_id": .string(update2), "subscription_id": .string(device), "token_kind": "update",
             "apns_id": .string(try await Self.apnsID(harness, update2, device)), "reason": "Unregistered", "status": 410],
        ])

        // token.invalidated: the two dead device tokens, and the dead update token with its activity.
        let invalidated = data("token.invalidated")
        #expect(invalidated.count == 3, "\(invalidated)")
        #expect(Set(invalidated) == [
            ["subscription_id": .string(bad), "token_kind": "device", "reason": "BadDeviceToken"],
            ["subscription_id": .string(dead), "token_kind": "device", "reason": "Unregistered"],
            ["subscription_id": .string(device), "token_kind": "update", "reason": "Unregistered", "activity_id": "game-2"],
        ])

        // notification.completed: once per message; the notification's carries the figures of its view.
        let completed = data("notification.completed")
        #expect(completed.compactMap { $0["notification_id"]?.stringValue }.sorted() == [messageID, update1, update2, endMessage].sorted())
        let done = try #require(completed.first { $0["notification_id"] == .string(messageID) })
        #expect(Set(done.keys) == Set(["notification_id", "message_kind"] + EventData.completedFields))
        #expect(done["message_kind"] == view["message_kind"] && done["message_kind"] != nil && done["message_kind"] != .null)
        for field in EventData.completedFields {
            #expect(done[field] == view[field], "\(field): event \(String(describing: done[field])), view \(String(describing: view[field]))")
        }
        #expect(done["successful"] == 1 && done["remaining"] == 0 && done["audience_total"] == 4, "\(done)")
        #expect((done["failed"]?.intValue ?? 0) + (done["errored"]?.intValue ?? 0) == 3, "\(done)")
        // `completed_at` is unix seconds, as in the view.
        #expect((done["completed_at"]?.doubleValue ?? 0) >= started.rounded(.down), "\(done)")

        // live_activity.registered: a new activity is `created`, a refreshed token is not.
        #expect(data("live_activity.registered") == [
            ["activity_id": "game-1", "activity_type": "Score", "subscription_id": .string(device), "created": true],
            ["activity_id": "game-1", "activity_type": "Score", "subscription_id": .string(device), "created": false],
            ["activity_id": "game-2", "activity_type": "Score", "subscription_id": .string(device), "created": true],
            ["activity_id": "game-3", "activity_type": "Score", "subscription_id": .string(device), "created": true],
            ["activity_id": "game-4", "activity_type": "Score", "subscription_id": .string(device), "created": true],
        ])

        // live_activity.ended, each cause.
        #expect(data("live_activity.ended") == [
            ["activity_id": "game-1", "subscription_id": .string(device), "cause": "device"],
            ["activity_id": "game-2", "subscription_id": .string(device), "cause": "dead_token"],
            ["activity_id": "game-3", "subscription_id": .string(device), "cause": "remote"],
            ["activity_id": "game-4", "subscription_id": .string(device), "cause": "retired"],
        ])

        // click: the first tap is `first`, the second is not; a Live Activity tap carries its activity.
        #expect(data("click") == [
            ["notification_id": .string(messageID), "subscription_id": .string(device), "first": true],
            ["notification_id": .string(messageID), "subscription_id": .string(device), "first": false],
            ["notification_id": .string(update1), "subscription_id": .string(device), "activity_id": "game-1", "first": true],
        ])

        // app.credentials_expiring: once, with the certificate's expiry and topics.
        #expect(data("app.credentials_expiring") == [
            EventData.credentialsExpiring(expiresAt: certificate.expiresAt, topics: [DeliveryHarness.bundleID]),
        ])
        #expect(data("app.credentials_expiring").first?.keys.sorted() == ["credential", "expires_at", "topics"])

        // ping: `{}`, the one the route queued.
        let pings = events.filter { $0["type"] == "ping" }
        #expect(pings.map { $0["id"]?.stringValue } == [pingID])
        #expect(pings.first?["data"] == .object([:]))
    }
}
