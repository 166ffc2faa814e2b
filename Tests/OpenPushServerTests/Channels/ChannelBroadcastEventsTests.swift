import APNs
import APNsSimulator
import Crypto
import Foundation
import HTTPClient
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres
import Testing

/// A broadcast's outcome goes the way every push's does: `delivery.accepted` / `delivery.failed`
/// in the event feed and to webhooks, shaped as a device push's (`token_kind: "channel"`, the
/// channel's `chn_` id for the subscription id, the `apns-request-id` for the apns-id); a
/// `ChannelNotRegistered` forgets the channel with `token.invalidated`; `/metrics` counts it.
@Suite struct ChannelBroadcastEventsTests {
    /// Accepted by the simulator.
    static let good = String(repeating: "b1", count: 32)
    /// 400 BadDeviceToken.
    static let bad = "bad0" + String(repeating: "b2", count: 30)

    static func channel(_ harness: DeliveryHarness, name: String = "final") async throws -> (id: String, channelID: String) {
        let made = try await ChannelRoutesTests.created(harness, name: name)
        return (try #require(made["id"]?.stringValue), try #require(made["channel_id"]?.stringValue))
    }

    static func broadcast(_ harness: DeliveryHarness, _ id: String) async throws -> String {
        let sent = await ChannelRoutesTests.broadcast(harness, id, ChannelRoutesTests.update)
        #expect(sent.status == 201, "\(sent.text)")
        return try #require(sent.json?.objectValue?["id"]?.stringValue)
    }

    static func events(_ harness: DeliveryHarness, _ app: CreatedApp? = nil, type: String,
                       count: Int? = nil) async throws -> [JSONObject] {
        try await EventFeedTests.feed(harness.app, app ?? harness.created, ["types": type], count: count).events
    }

    static func pushes(_ harness: DeliveryHarness, kind: String, state: String, reason: String = "") -> Int? {
        let line = "openpush_pushes_total{kind=\"\(kind)\",state=\"\(state)\",reason=\"\(reason)\",service=\"apns\"} "
        return harness.app.services.metrics.render().split(separator: "\n").first { $0.hasPrefix(line) }
            .flatMap { Int($0.dropFirst(line.count)) }
    }

    @Test func anAcceptedBroadcastIsADeliveryAcceptedShapedLikeADevicePush() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await harness.app.createApp()
        let (id, channelID) = try await Self.channel(harness)
        _ = try await harness.app.insertSubscription(appID: harness.created.app.id, token: Self.good)
        let notification = try await NotificationOpenedTests.send(harness)
        let messageID = try await Self.broadcast(harness, id)
        try await harness.drain()

        let accepted = try await Self.events(harness, type: "delivery.accepted", count: 2)
        try #require(accepted.count == 2, "\(accepted)")
        let device = try #require(accepted.first { $0["data"]?.objectValue?["notification_id"] == .string(notification) })
        let channel = try #require(accepted.first { $0["data"]?.objectValue?["notification_id"] == .string(messageID) })
        #expect(Set(channel.keys) == Set(device.keys))
        let data = try #require(channel["data"]?.objectValue)
        let deviceData = try #require(device["data"]?.objectValue)
        #expect(Set(data.keys) == Set(deviceData.keys), "\(data) against \(deviceData)")
        #expect(data["token_kind"] == "channel" && deviceData["token_kind"] == "device")
        #expect(data["subscription_id"] == .string(id))
        let sent = try #require(harness.simulator.accepted().first { $0.channelID == channelID })
        #expect(data["apns_id"] == .string(try #require(sent.header("apns-request-id"))))
        // The notification view is as it was: the broadcast row, not a delivery record.
        let view = try #require(await ChannelRoutesTests.view(harness, messageID).json?.objectValue)
        #expect(view["successful"] == 1 && view["apns"]?.objectValue?["state"] == "accepted")
        let records: Int = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM deliveries WHERE message_id = \(messageID)
            """).firstRow().decode("n")
        #expect(records == 0)
        #expect(Self.pushes(harness, kind: "channel", state: "accepted") == 1)
        // Another app's feed holds none of it.
        #expect(try await Self.events(harness, other, type: "delivery.accepted").isEmpty)
    }

    @Test func aRefusedBroadcastIsADeliveryFailedThatReachesAWebhookShapedLikeADevicePush() async throws {
        let harness = try await DeliveryHarness.make()
        let receiver = try WebhookReceiver()
        let client = try HTTPClient()
        let dispatcher = WebhookDispatcherTests.dispatcher(WebhookDispatcherTests.Setup(
            app: harness.app, appID: harness.created.app.id, restKey: harness.created.restKey, client: client))
        defer {
            Task {
                await dispatcher.stop()
                await receiver.shutdown()
                await client.shutdown()
                await harness.shutdown()
            }
        }
        let appID = harness.created.app.id
        let made = await harness.app.request(.post, "/apps/\(appID)/webhooks", headers: .restKey(harness.created.restKey),
                                             json: ["url": .string(receiver.url), "events": ["delivery.failed"]])
        #expect(made.status == 201, "\(made.text)")
        dispatcher.start()
        let (id, channelID) = try await Self.channel(harness)
        harness.simulator.setChannelBehaviour(APNSSimulator.Behaviour(status: 400, reason: "FeatureNotEnabled"),
                                              channelID: channelID, operation: .broadcast)
        _ = try await harness.app.insertSubscription(appID: appID, token: Self.bad)
        let notification = try await NotificationOpenedTests.send(harness)
        let messageID = try await Self.broadcast(harness, id)
        try await harness.drain()

        let failed = try await Self.events(harness, type: "delivery.failed", count: 2)
        try #require(failed.count == 2, "\(failed)")
        let fed = try #require(failed.first { $0["data"]?.objectValue?["notification_id"] == .string(messageID) })
        #expect(fed["data"]?.objectValue?["status"] == 400 && fed["data"]?.objectValue?["reason"] == "FeatureNotEnabled")

        let arrived = await receiver.wait(timeout: .seconds(60)) { $0.flatMap(\.eventIDs).count >= 2 }
        try #require(arrived, "\(receiver.eventIDs.count) events arrived")
        var posted: [JSONObject] = []
        for post in receiver.received {
            let body = try #require(try JSONValue.parse(post.body).objectValue)
            posted += try #require(body["events"]?.arrayValue).compactMap(\.objectValue)
        }
        let device = try #require(posted.first { $0["data"]?.objectValue?["notification_id"] == .string(notification) })
        let channel = try #require(posted.first { $0["data"]?.objectValue?["notification_id"] == .string(messageID) })
        #expect(channel["type"] == "delivery.failed" && channel["id"] == fed["id"])
        #expect(Set(channel.keys) == Set(device.keys))
        let data = try #require(channel["data"]?.objectValue)
        let deviceData = try #require(device["data"]?.objectValue)
        #expect(Set(data.keys) == Set(deviceData.keys), "\(data) against \(deviceData)")
        #expect(data["token_kind"] == "channel" && data["subscription_id"] == .string(id))
        #expect(data["status"] == 400 && data["reason"] == "FeatureNotEnabled")
        #expect(deviceData["status"] == 400 && deviceData["reason"] == "BadDeviceToken")
        #expect(Self.pushes(harness, kind: "channel", state: "error", reason: "FeatureNotEnabled") == 1)
        // A refusal other than ChannelNotRegistered leaves the channel be.
        #expect(await harness.app.request(.get, ChannelRoutesTests.path(harness, "/\(id)"),
                                          headers: .restKey(harness.created.restKey)).status == 200)
    }

    @Test func channelNotRegisteredForgetsTheChannelWithTokenInvalidated() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let (gone, goneChannelID) = try await Self.channel(harness)
        let (kept, _) = try await Self.channel(harness, name: "semi")
        // Deleted at APNs behind OpenPush's back: APNs answers the broadcast ChannelNotRegistered.
        let credential = APNSCredential(keyID: "KEYID00001", teamID: "TEAM000001", signingKey: try P256SigningKey(pem: harness.p8))
        let deleted = try await harness.client.deleteChannel(bundleID: DeliveryHarness.bundleID, channelID: goneChannelID,
                                                             requestID: UUID().uuidString.lowercased(), credential: credential,
                                                             environment: .sandbox)
        #expect(deleted.status == 204)
        let messageID = try await Self.broadcast(harness, gone)
        _ = try await Self.broadcast(harness, kept)
        try await harness.drain()

        let rest = HTTPHeaders.restKey(harness.created.restKey)
        #expect(await harness.app.request(.get, ChannelRoutesTests.path(harness, "/\(gone)"), headers: rest).status == 404)
        #expect(await harness.app.request(.get, ChannelRoutesTests.path(harness, "/\(kept)"), headers: rest).status == 200)
        let invalidated = try await Self.events(harness, type: "token.invalidated", count: 1)
        try #require(invalidated.count == 1, "\(invalidated)")
        #expect(invalidated[0]["data"] == ["subscription_id": .string(gone), "token_kind": "channel", "reason": "ChannelNotRegistered"])
        let failed = try await Self.events(harness, type: "delivery.failed", count: 1)
        #expect(failed.count == 1 && failed.first?["data"]?.objectValue?["subscription_id"] == .string(gone))
        #expect(failed.first?["data"]?.objectValue?["reason"] == "ChannelNotRegistered")
        let apns = try #require(await ChannelRoutesTests.view(harness, messageID).json?.objectValue?["apns"]?.objectValue)
        #expect(apns["state"] == "error" && apns["status"] == 400 && apns["reason"] == "ChannelNotRegistered")
        // Another broadcast to the forgotten channel is refused as for any unknown channel.
        #expect(await ChannelRoutesTests.broadcast(harness, gone, ChannelRoutesTests.update).status == 404)
    }

    @Test func aServerErrorIsRetriedAndOnlyTheFinalOutcomeIsAnEvent() async throws {
        // The retry an hour out, made due by the test: however long a loaded machine's drain
        // takes, it cannot reach the retry before the check.
        var settings = DeliveryHarness.quickSettings()
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let (id, channelID) = try await Self.channel(harness)
        harness.simulator.setChannelBehaviour(.serviceUnavailable, channelID: channelID, operation: .broadcast)
        let messageID = try await Self.broadcast(harness, id)
        try await harness.drain()
        let apns = try #require(await ChannelRoutesTests.view(harness, messageID).json?.objectValue?["apns"]?.objectValue)
        #expect(apns["state"] == "queued" && apns["status"] == 503 && apns["reason"] == "ServiceUnavailable")
        #expect(Self.pushes(harness, kind: "channel", state: "queued", reason: "ServiceUnavailable") == 1)
        harness.simulator.setChannelBehaviour(nil, channelID: channelID, operation: .broadcast)
        try await DeliveryGuaranteesTests.retriesComeDue(harness)
        try await harness.drain()
        let final = try #require(await ChannelRoutesTests.view(harness, messageID).json?.objectValue?["apns"]?.objectValue)
        #expect(final["state"] == "accepted" && final["attempts"] == 2)
        let accepted = try await Self.events(harness, type: "delivery.accepted", count: 1)
        #expect(accepted.count == 1 && accepted.first?["data"]?.objectValue?["token_kind"] == "channel")
        #expect(try await Self.events(harness, type: "delivery.failed").isEmpty)
        #expect(Self.pushes(harness, kind: "channel", state: "accepted") == 1)
    }

    @Test func aCredentialRefusalPausesTheAppAndHoldsTheBroadcast() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let other = try await harness.app.createApp()
        let (id, channelID) = try await Self.channel(harness)
        harness.simulator.setChannelBehaviour(APNSSimulator.Behaviour(status: 403, reason: "InvalidProviderToken"),
                                              channelID: channelID, operation: .broadcast)
        let messageID = try await Self.broadcast(harness, id)
        try await harness.drain()
        let paused: Bool = try await harness.app.services.database.query("""
            SELECT apns_paused_at IS NOT NULL AS paused FROM apps WHERE id = \(harness.created.app.id)
            """).firstRow().decode("paused")
        #expect(paused)
        let otherPaused: Bool = try await harness.app.services.database.query("""
            SELECT apns_paused_at IS NOT NULL AS paused FROM apps WHERE id = \(other.app.id)
            """).firstRow().decode("paused")
        #expect(!otherPaused)
        let apns = try #require(await ChannelRoutesTests.view(harness, messageID).json?.objectValue?["apns"]?.objectValue)
        #expect(apns["state"] == "queued" && apns["status"] == 403 && apns["reason"] == "InvalidProviderToken")
        let waiting: Int = try await harness.app.services.database.query("""
            SELECT count(*)::int AS n FROM delivery_jobs WHERE message_id = \(messageID) AND attempt = 1
            """).firstRow().decode("n")
        #expect(waiting == 1)
        #expect(try await Self.events(harness, type: "delivery.failed").isEmpty)
    }
}
