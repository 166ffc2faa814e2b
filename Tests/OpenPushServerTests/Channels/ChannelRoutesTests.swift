import Foundation
import Testing
import APNs
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Broadcast channels against the local APNs simulator: the channel exists at APNs as long as
/// it exists here, a broadcast goes out as one request with Apple's headers and the per-device
/// payload rules, and APNs' answer shows in the notification view.
@Suite struct ChannelRoutesTests {
    static func path(_ harness: DeliveryHarness, _ rest: String = "") -> String {
        "/apps/\(harness.created.app.id)/live_activities/channels" + rest
    }

    static func view(_ harness: DeliveryHarness, _ messageID: String) async -> TestResponse {
        await harness.app.request(.get, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                  query: ["app_id": harness.created.app.id])
    }

    static func create(_ harness: DeliveryHarness, _ body: JSONObject = ["name": "final", "message_storage_policy": 1,
                                                                         "environment": "sandbox"]) async -> TestResponse {
        await harness.app.request(.post, path(harness), headers: .restKey(harness.created.restKey), json: .object(body))
    }

    static func created(_ harness: DeliveryHarness, name: String = "final") async throws -> JSONObject {
        let response = await create(harness, ["name": .string(name), "message_storage_policy": 1, "environment": "sandbox"])
        #expect(response.status == 201, "\(response.text)")
        return try #require(response.json?.objectValue)
    }

    static func broadcast(_ harness: DeliveryHarness, _ id: String, _ body: JSONObject) async -> TestResponse {
        await harness.app.request(.post, path(harness, "/\(id)/notifications"), headers: .restKey(harness.created.restKey),
                                  json: .object(body))
    }

    static let update: JSONObject = [
        "event": "update", "name": "score", "event_updates": ["home": 1, "away": 0],
        "headings": ["en": "Goal!"], "contents": ["en": "1 – 0"],
    ]

    @Test func createListShowAndDeleteKeepAPNsInStep() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let channel = try await Self.created(harness)
        let id = try #require(channel["id"]?.stringValue)
        #expect(Identifier.isWellFormed(id, prefix: "chn"))
        let channelID = try #require(channel["channel_id"]?.stringValue)
        #expect(Data(base64Encoded: channelID) != nil)
        #expect(channel["name"] == "final" && channel["message_storage_policy"] == 1 && channel["environment"] == "sandbox")
        #expect(channel["created_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(Set(channel.keys) == ["id", "name", "channel_id", "message_storage_policy", "environment", "created_at"])
        // At APNs: the app's bundle id, the storage policy asked for.
        let atAPNs = harness.simulator.channels()
        #expect(atAPNs.count == 1 && atAPNs.first?.channelID == channelID)
        #expect(atAPNs.first?.bundleID == DeliveryHarness.bundleID && atAPNs.first?.storagePolicy == 1)

        let taken = await Self.create(harness, ["name": "final"])
        #expect(taken.status == 409)
        #expect(taken.json == ["errors": ["a channel named 'final' already exists in this app"]])
        #expect(harness.simulator.channels().count == 1)

        let second = try await Self.created(harness, name: "semi")
        let list = await harness.app.request(.get, Self.path(harness), headers: .restKey(harness.created.restKey),
                                             query: ["limit": "1"])
        #expect(list.status == 200)
        #expect(list.json?.objectValue?["total_count"] == 2 && list.json?.objectValue?["limit"] == 1)
        #expect(list.json?.objectValue?["channels"] == [.object(channel)])
        let page2 = await harness.app.request(.get, Self.path(harness), headers: .restKey(harness.created.restKey),
                                              query: ["limit": "1", "offset": "1"])
        #expect(page2.json?.objectValue?["channels"] == [.object(second)])

        let shown = await harness.app.request(.get, Self.path(harness, "/\(id)"), headers: .restKey(harness.created.restKey))
        #expect(shown.status == 200 && shown.json == .object(channel))

        let deleted = await harness.app.request(.delete, Self.path(harness, "/\(id)"), headers: .restKey(harness.created.restKey))
        #expect(deleted.status == 204)
        #expect(!harness.simulator.channels().contains { $0.channelID == channelID })
        let gone = await harness.app.request(.get, Self.path(harness, "/\(id)"), headers: .restKey(harness.created.restKey))
        #expect(gone.status == 404 && gone.json == ["errors": .array([.string("unknown channel '\(id)'")])])
        let sendToDeleted = await Self.broadcast(harness, id, Self.update)
        #expect(sendToDeleted.status == 404)
        #expect(sendToDeleted.json == ["errors": .array([.string("unknown channel '\(id)'")])])
    }

    @Test func badBodiesNameTheField() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let response = await Self.create(harness, ["message_storage_policy": 2, "environment": "staging", "color": "red"])
        #expect(response.status == 400)
        let list = try #require(response.json?.objectValue?["errors"]?.arrayValue)
        let errors = list.compactMap { $0.stringValue }
        #expect(errors.count == 4)
        #expect(errors[0].hasPrefix("name is required"))
        #expect(errors[1].hasPrefix("message_storage_policy must be 0"))
        #expect(errors[2] == #"environment must be "sandbox" or "production""#)
        #expect(errors[3].contains("color"))
        #expect(harness.simulator.channels().isEmpty)
    }

    @Test func anUpdateAndAnEndGoOutAsBroadcastsWithApplesHeadersAndPayload() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let channel = try await Self.created(harness)
        let id = try #require(channel["id"]?.stringValue)
        let channelID = try #require(channel["channel_id"]?.stringValue)

        let sent = await Self.broadcast(harness, id, Self.update.with(["stale_date": 2_000_000_000, "ios_relevance_score": 0.5]))
        #expect(sent.status == 201, "\(sent.text)")
        let messageID = try #require(sent.json?.objectValue?["id"]?.stringValue)
        #expect(Set(sent.json?.objectValue?.keys ?? []) == ["id"])
        let ended = await Self.broadcast(harness, id, ["event": "end", "name": "final whistle", "event_updates": ["home": 1, "away": 0],
                                                       "dismissal_date": 2_000_000_100])
        #expect(ended.status == 201, "\(ended.text)")
        try await harness.drain()

        let pushes = harness.simulator.accepted()
        #expect(pushes.count == 2)
        let (first, last) = (pushes[0], pushes[1])
        #expect(first.channelID == channelID && last.channelID == channelID)
        #expect(first.header("apns-push-type") == "liveactivity")
        #expect(first.header("apns-channel-id") == channelID)
        #expect(first.header("apns-priority") == "5")
        #expect(last.header("apns-priority") == "10")
        #expect(first.header("apns-topic") == nil)
        let expiration = try #require(first.header("apns-expiration").flatMap(Int.init))
        #expect(abs(expiration - Int(Date().timeIntervalSince1970) - LiveActivityPayload.expirationSeconds) < 60)
        let requestID = try #require(first.header("apns-request-id"))
        #expect(requestID.count == 36)

        let aps = try #require(first.payloadJSON?.objectValue?["aps"]?.objectValue)
        #expect(aps["event"] == "update")
        #expect(aps["content-state"] == ["home": 1, "away": 0, "openpush": ["notification_id": .string(messageID), "activity_id": .string(id)]])
        #expect(aps["alert"] == ["title": "Goal!", "body": "1 – 0"])
        #expect(aps["stale-date"] == 2_000_000_000)
        #expect(aps["relevance-score"] == 0.5)
        #expect(aps["dismissal-date"] == nil)
        let endAPS = try #require(last.payloadJSON?.objectValue?["aps"]?.objectValue)
        #expect(endAPS["event"] == "end")
        #expect(endAPS["dismissal-date"] == 2_000_000_100)
        #expect(endAPS["content-state"] == ["home": 1, "away": 0])
        // Strictly increasing per channel, even within one second.
        let t1 = try #require(aps["timestamp"]?.intValue)
        let t2 = try #require(endAPS["timestamp"]?.intValue)
        #expect(t2 > t1)

        // The control API lists broadcasts with their channel.
        let control = harness.simulator.control(method: "GET", path: "/pushes", query: ["channel_id": channelID], body: [])
        #expect(control.body?.objectValue?["pushes"]?.arrayValue?.first?.objectValue?["channel_id"] == .string(channelID))

        let view = await Self.view(harness, messageID)
        #expect(view.status == 200, "\(view.text)")
        let shown = try #require(view.json?.objectValue)
        #expect(shown["audience"] == "broadcast")
        #expect(shown["channel_id"] == .string(channelID))
        #expect(shown["channel"] == .string(id))
        #expect(shown["successful"] == 1 && shown["errored"] == 0 && shown["remaining"] == 0)
        let apns = try #require(shown["apns"]?.objectValue)
        #expect(apns["state"] == "accepted" && apns["status"] == 200 && apns["reason"] == .null)
        #expect(apns["request_id"] == .string(requestID))
    }

    @Test func aSecondBroadcastInTheSameSecondGetsTheNextTimestamp() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let made = try await Self.created(harness)
        let id = try #require(made["id"]?.stringValue)
        for _ in 0..<3 { #expect(await Self.broadcast(harness, id, Self.update).status == 201) }
        try await harness.drain()
        let stamps = harness.simulator.accepted().compactMap { $0.payloadJSON?.objectValue?["aps"]?.objectValue?["timestamp"]?.intValue }
        #expect(stamps.count == 3)
        #expect(stamps.sorted() == stamps && Set(stamps).count == 3)
    }

    @Test func liquidInHeadingsOrContentsIsRefusedNamingTheField() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let made = try await Self.created(harness)
        let id = try #require(made["id"]?.stringValue)
        let response = await Self.broadcast(harness, id, Self.update.with(["headings": ["en": "Hi {{ first_name }}"],
                                                                              "contents": ["en": "{% if x %}y{% endif %}"]]))
        #expect(response.status == 400)
        #expect(response.json == ["errors": .array([.string(ChannelBroadcast.liquidRefused("headings")),
                                                    .string(ChannelBroadcast.liquidRefused("contents"))])])
        let queued: Int = try await harness.app.services.database.query("SELECT count(*)::int AS n FROM delivery_jobs")
            .firstRow().decode("n")
        #expect(queued == 0)
    }

    @Test func anotherAppsKeyNeverReachesTheChannel() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let made = try await Self.created(harness)
        let id = try #require(made["id"]?.stringValue)
        let other = try await harness.app.createApp()
        let otherPath = "/apps/\(other.app.id)/live_activities/channels/\(id)"
        let key = HTTPHeaders.restKey(other.restKey)
        #expect(await harness.app.request(.get, otherPath, headers: key).status == 404)
        #expect(await harness.app.request(.delete, otherPath, headers: key).status == 404)
        #expect(await harness.app.request(.post, otherPath + "/notifications", headers: key, json: .object(Self.update)).status == 404)
        let otherList = await harness.app.request(.get, "/apps/\(other.app.id)/live_activities/channels", headers: key)
        #expect(otherList.json?.objectValue?["channels"] == [])
        // This app's path with the other app's key: refused as the route family does.
        #expect(await harness.app.request(.get, Self.path(harness, "/\(id)"), headers: key).status == 401)
        #expect(harness.simulator.channels().count == 1)
    }

    @Test func apnsErrorsShowInTheView() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let channel = try await Self.created(harness)
        let id = try #require(channel["id"]?.stringValue)
        let channelID = try #require(channel["channel_id"]?.stringValue)
        let injected = harness.simulator.control(
            method: "POST", path: "/channels/behaviours", body: JSONValue.object([
                "channel_id": .string(channelID), "status": 400, "reason": "FeatureNotEnabled",
            ]).serializedBytes)
        #expect(injected.status == 200)
        let messageID = try #require(await Self.broadcast(harness, id, Self.update).json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        let view = await Self.view(harness, messageID)
        let shown = try #require(view.json?.objectValue)
        #expect(shown["audience"] == "broadcast" && shown["errored"] == 1 && shown["successful"] == 0)
        let apns = try #require(shown["apns"]?.objectValue)
        #expect(apns["state"] == "error" && apns["status"] == 400 && apns["reason"] == "FeatureNotEnabled")
        #expect(apns["attempts"] == 1)
    }

    @Test func aCancelledBroadcastNeverGoesOutAndShowsCancelled() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let id = try #require(try await Self.created(harness)["id"]?.stringValue)
        let messageID = try #require(await Self.broadcast(harness, id, Self.update).json?.objectValue?["id"]?.stringValue)
        let cancelled = await harness.app.request(.delete, "/notifications/\(messageID)", headers: .restKey(harness.created.restKey),
                                                  query: ["app_id": harness.created.app.id])
        #expect(cancelled.status == 200, "\(cancelled.text)")
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        let shown = try #require(await Self.view(harness, messageID).json?.objectValue)
        #expect(shown["remaining"] == 0 && shown["cancelled"] == 1 && shown["successful"] == 0 && shown["errored"] == 0)
        #expect(shown["apns"]?.objectValue?["state"] == "cancelled")
        #expect(shown["completed_at"]?.stringValue != nil)
    }

    @Test func aPassingAPNsErrorIsRetriedThenRecorded() async throws {
        // The retry an hour out, made due by the test: however long a loaded machine's drain
        // takes, it cannot reach the retry before the check.
        var settings = DeliveryHarness.quickSettings()
        settings.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 3600, maxDelay: 3600)
        let harness = try await DeliveryHarness.make(settings: settings)
        defer { Task { await harness.shutdown() } }
        let channel = try await Self.created(harness)
        let id = try #require(channel["id"]?.stringValue)
        let channelID = try #require(channel["channel_id"]?.stringValue)
        harness.simulator.setChannelBehaviour(.tooManyRequests, channelID: channelID, operation: .broadcast)
        let messageID = try #require(await Self.broadcast(harness, id, Self.update).json?.objectValue?["id"]?.stringValue)
        try await harness.drain()
        let view = await Self.view(harness, messageID)
        let apns = try #require(view.json?.objectValue?["apns"]?.objectValue)
        #expect(apns["state"] == "queued" && apns["status"] == 429 && apns["reason"] == "TooManyRequests")
        harness.simulator.setChannelBehaviour(nil, channelID: channelID, operation: .broadcast)
        try await DeliveryGuaranteesTests.retriesComeDue(harness)
        try await harness.drain()
        let final = try #require(await Self.view(harness, messageID).json?.objectValue?["apns"]?.objectValue)
        #expect(final["state"] == "accepted" && final["status"] == 200 && final["attempts"] == 2)
        #expect(harness.simulator.accepted().count == 1)
    }

    @Test func broadcastsShareTheSendRoutesRateLimit() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let made = try await Self.created(harness)
        let id = try #require(made["id"]?.stringValue)
        let appID = harness.created.app.id
        // 60 sends of the other routes in the window already.
        try await harness.app.services.database.query("""
            INSERT INTO rate_limit_events (app_id, bucket, at)
            SELECT \(appID), \(RateLimit.liveActivitySends.bucket), now() FROM generate_series(1, 60)
            """)
        let refused = await Self.broadcast(harness, id, Self.update)
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "60")
        #expect(refused.json?.objectValue?["errors"] != nil)
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
    }

    @Test func theChannelHostsAreConfigurable() throws {
        let defaults = try Configuration.fromEnvironment([:])
        #expect(defaults.apnsChannelsProductionURL == "https://api-manage-broadcast.push.apple.com:2196")
        #expect(defaults.apnsChannelsDevelopmentURL == "https://api-manage-broadcast.sandbox.push.apple.com:2195")
        let set = try Configuration.fromEnvironment(["OPENPUSH_APNS_CHANNELS_PRODUCTION_URL": "http://127.0.0.1:1",
                                                     "OPENPUSH_APNS_CHANNELS_DEVELOPMENT_URL": "http://127.0.0.1:2"])
        #expect(set.apnsClientConfiguration.channelsProductionURL == "http://127.0.0.1:1")
        #expect(set.apnsClientConfiguration.channelsSandboxURL == "http://127.0.0.1:2")
        #expect(throws: ConfigurationError.self) {
            try Configuration.fromEnvironment(["OPENPUSH_APNS_CHANNELS_PRODUCTION_URL": "api-manage-broadcast.push.apple.com"])
        }
    }

    @Test func aSharedDemoTenantsKeyCannotManageOrBroadcast() async throws {
        let demo = try await SharedDemo.make()
        let tenant = try await demo.createTenant()
        let base = "/apps/\(demo.appID)/live_activities/channels"
        let key = HTTPHeaders.restKey(tenant.restKey)
        let create = await demo.app.request(.post, base, headers: key, json: ["name": "final"])
        #expect(create.status == 403)
        #expect(create.json == ["errors": ["a tenant's key cannot manage channels: they are shared by every tenant of this app"]])
        let send = await demo.app.request(.post, base + "/chn_x/notifications", headers: key, json: .object(Self.update))
        #expect(send.status == 403)
        #expect(send.json == ["errors": ["a tenant's key cannot broadcast on channels: they are shared by every tenant of this app"]])
        #expect(await demo.app.request(.delete, base + "/chn_x", headers: key).status == 403)
    }

    @Test func theNativeLookupGivesAnAppItsChannelID() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let channel = try await Self.created(harness)
        let base = "/v1/apps/\(harness.created.app.id)/live-activities/channels"
        let found = await harness.app.request(.get, base, headers: .sdkKey(harness.created.sdkKey), query: ["name": "final"])
        #expect(found.status == 200)
        #expect(found.json?.objectValue?["channel_id"] == channel["channel_id"])
        let missing = await harness.app.request(.get, base, headers: .sdkKey(harness.created.sdkKey), query: ["name": "other"])
        #expect(missing.status == 404 && missing.json == ["detail": "no channel named 'other'"])
        let noName = await harness.app.request(.get, base, headers: .sdkKey(harness.created.sdkKey))
        #expect(noName.status == 400 && noName.json?.objectValue?["detail"] != nil)
        #expect(await harness.app.request(.get, base, headers: .sdkKey("wrong"), query: ["name": "final"]).status == 401)
        let other = try await harness.app.createApp()
        let foreign = await harness.app.request(.get, "/v1/apps/\(other.app.id)/live-activities/channels",
                                                headers: .sdkKey(other.sdkKey), query: ["name": "final"])
        #expect(foreign.status == 404)
    }
}

extension JSONObject {
    fileprivate func with(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other { merged[key] = value }
        return merged
    }
}
