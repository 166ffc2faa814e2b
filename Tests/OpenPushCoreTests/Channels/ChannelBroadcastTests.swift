import Testing
import OpenPushCore

/// The pure rules of a channel broadcast: the update route's body with Liquid refused, and the
/// per-device Live Activity payload rules on a broadcast request.
@Suite struct ChannelBroadcastTests {
    static let update: JSONObject = [
        "event": "update", "name": "Score", "event_updates": ["home": 2, "away": 1],
        "headings": ["en": "Goal"], "contents": ["en": "2 – 1"],
    ]
    static let now = 1_760_000_000.25

    static func send(_ body: JSONObject) throws -> LiveActivitySend {
        try ChannelBroadcast.parse(body, channelID: "chn_1").get()
    }

    static func build(_ send: LiveActivitySend, autoEnd: Int? = nil, timestamp: Int = 1_760_000_000) throws -> APNSBroadcastRequest {
        try ChannelBroadcast.build(.init(send: send, messageID: "msg_1", apnsChannelID: "dGVzdA==", bundleID: "com.example.app",
                                         autoEndMinutes: autoEnd, requestID: "5f0e3a52-1111-4222-8333-944455556666",
                                         timestamp: timestamp, now: now)).get()
    }

    @Test func anUpdateBuildsApplesBroadcastRequest() throws {
        let request = try Self.build(try Self.send(Self.update))
        #expect(request.path == "/4/broadcasts/apps/com.example.app")
        #expect(request.fields.map(\.name) == ["apns-push-type", "apns-channel-id", "apns-priority", "apns-expiration", "apns-request-id"])
        #expect(request.fields.map(\.value) == ["liveactivity", "dGVzdA==", "5", String(1_760_000_000 + 86_400),
                                                "5f0e3a52-1111-4222-8333-944455556666"])
        let aps = try #require(request.payload.objectValue?["aps"]?.objectValue)
        #expect(aps["event"] == "update" && aps["timestamp"] == 1_760_000_000)
        #expect(aps["alert"] == ["title": "Goal", "body": "2 – 1"])
        #expect(aps["content-state"] == ["home": 2, "away": 1, "openpush": ["notification_id": "msg_1", "activity_id": "chn_1"]])
        #expect(aps["stale-date"] == nil && aps["dismissal-date"] == nil && aps["attributes"] == nil)
    }

    @Test func priorityDefaultsByEventAndAnExplicitOneWins() throws {
        var end = Self.update
        end["event"] = "end"
        #expect(try Self.build(try Self.send(end)).priority == 10)
        var explicit = Self.update
        explicit["priority"] = 10
        #expect(try Self.build(try Self.send(explicit)).priority == 10)
        #expect(try Self.build(try Self.send(Self.update)).priority == 5)
    }

    @Test func staleAndDismissalDatesFollowTheDeviceRules() throws {
        var update = Self.update
        update["stale_date"] = 1_760_003_600
        let stale = try #require(try Self.build(try Self.send(update)).payload.objectValue?["aps"]?.objectValue)
        #expect(stale["stale-date"] == 1_760_003_600)

        var end = Self.update
        end["event"] = "end"
        let auto = try #require(try Self.build(try Self.send(end), autoEnd: 15).payload.objectValue?["aps"]?.objectValue)
        #expect(auto["dismissal-date"] == .int(Int64(Self.now + 15 * 60)))
        #expect(auto["content-state"] == ["home": 2, "away": 1])
        end["dismissal_date"] = 1_760_000_500
        let given = try #require(try Self.build(try Self.send(end), autoEnd: 15).payload.objectValue?["aps"]?.objectValue)
        #expect(given["dismissal-date"] == 1_760_000_500)

        var dismissingUpdate = Self.update
        dismissingUpdate["dismissal_date"] = 1_760_000_500
        #expect(throws: InvalidInput.self) { try Self.send(dismissingUpdate) }
    }

    @Test(arguments: ["headings", "contents"])
    func liquidIsRefusedNamingTheField(field: String) {
        var body = Self.update
        body[field] = ["en": "Hi {{ first_name }}"]
        guard case .failure(let error) = ChannelBroadcast.parse(body, channelID: "chn_1") else {
            Issue.record("Liquid was accepted")
            return
        }
        #expect(error.messages == [ChannelBroadcast.liquidRefused(field)])
        #expect(error.messages[0].hasPrefix(field + ":"))
    }

    @Test func theUpdateRoutesProblemsComeFirst() {
        var body = Self.update
        body["event"] = "start"
        body["headings"] = ["en": "{% if a %}b{% endif %}"]
        guard case .failure(let error) = ChannelBroadcast.parse(body, channelID: "chn_1") else {
            Issue.record("accepted")
            return
        }
        #expect(error.messages.first == SendMessages.updateOrEndEvent)
        #expect(error.messages.last == ChannelBroadcast.liquidRefused("headings"))
    }

    @Test func aPayloadOverApplesBroadcastLimitIsRefused() throws {
        var body = Self.update
        body["event_updates"] = ["blob": .string(String(repeating: "x", count: 5200))]
        let result = ChannelBroadcast.build(.init(send: try Self.send(body), messageID: "msg_1", apnsChannelID: "dGVzdA==",
                                                  bundleID: "b", requestID: "r", timestamp: 1, now: Self.now))
        guard case .failure(.tooLarge) = result else {
            Issue.record("a payload over 5120 bytes was built")
            return
        }
    }

    @Test func channelFieldsDefaultAndValidate() throws {
        let defaults = try ChannelFields.parse(["name": "x"]).get()
        #expect(defaults == ChannelFields(name: "x", storagePolicy: .noMessageStored, environment: .production))
        let given = try ChannelFields.parse(["name": "x", "message_storage_policy": 1, "environment": "sandbox"]).get()
        #expect(given.storagePolicy == .mostRecentMessageStored && given.environment == .sandbox)
        guard case .failure(let error) = ChannelFields.parse(["name": " ", "message_storage_policy": "1"]) else {
            Issue.record("accepted")
            return
        }
        #expect(error.messages.count == 2)
        // A null is the default, as an absent field is.
        let nulls = try ChannelFields.parse(["name": "x", "message_storage_policy": nil, "environment": nil]).get()
        #expect(nulls == defaults)
        guard case .failure(let wrongTypes) = ChannelFields.parse(["name": "x", "message_storage_policy": [], "environment": 0])
        else {
            Issue.record("accepted")
            return
        }
        #expect(wrongTypes.messages.count == 2)
    }
}
