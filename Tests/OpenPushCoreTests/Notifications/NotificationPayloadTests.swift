import Testing
import OpenPushCore

/// `NotificationSendParser` and `NotificationPayload`: issue 7's builder rules, one per row.
@Suite struct NotificationPayloadTests {
    static let apnsID = "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81"
    static let target: JSONObject = ["included_segments": ["Subscribed Users"]]

    static func parse(_ fields: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var body = target
        for (key, value) in fields { body[key] = value }
        return NotificationSendParser.parse(body)
    }

    static func build(_ fields: JSONObject, badge: Int? = nil, platform: String = "ios") throws -> APNSRequest {
        let send = try parse(fields).get()
        let input = NotificationPushInput(send: send, title: send.headings?["en"], subtitle: send.subtitle?["en"],
                                          body: send.contents?["en"], badge: badge, bundleID: "com.example.app",
                                          watchBundleID: "com.example.app.watch", platform: platform,
                                          apnsID: apnsID, expiration: 1_800_000_000)
        return try NotificationPayload.build(input).get()
    }

    static func problems(_ fields: JSONObject) -> [String] {
        guard case .failure(let error) = parse(fields) else { return [] }
        return error.messages
    }

    @Test func anAlertGoesAtTenToTheBundleID() throws {
        let request = try Self.build(["contents": ["en": "Hello"]])
        #expect(request.headers.pushType == .alert)
        #expect(request.headers.priority == 10)
        #expect(request.headers.topic == "com.example.app")
        #expect(request.headers.collapseID == nil)
        #expect(request.payload == ["aps": ["alert": ["body": "Hello"]]])
    }

    @Test func aWatchGetsTheWatchBundleID() throws {
        #expect(try Self.build(["contents": ["en": "Hi"]], platform: "watchos").headers.topic == "com.example.app.watch")
    }

    @Test func priorityFiveIsKeptOnAnAlert() throws {
        #expect(try Self.build(["contents": ["en": "Hi"], "priority": 5]).headers.priority == 5)
    }

    @Test func contentAvailableWithoutContentIsABackgroundPush() throws {
        let request = try Self.build(["content_available": true, "data": ["k": "v"], "priority": 10,
                                      "ios_category": "C", "thread_id": "t"])
        #expect(request.headers.pushType == .background)
        #expect(request.headers.priority == 5)
        #expect(request.payload == ["aps": ["content-available": 1], "k": "v"])
    }

    @Test(arguments: [
        ["ios_sound": "default"] as JSONObject,
        ["ios_badgeType": "SetTo", "ios_badgeCount": 2],
        ["ios_badgeType": "Increase", "ios_badgeCount": 1],
    ])
    func aBackgroundPushRefusesSoundOrBadge(_ extra: JSONObject) {
        var fields: JSONObject = ["content_available": true]
        for (key, value) in extra { fields[key] = value }
        #expect(Self.problems(fields) == [NotificationSendParser.Messages.silentWithSoundOrBadge])
    }

    @Test func everyAlertOptionLandsWhereAPNsWantsIt() throws {
        let request = try Self.build([
            "headings": ["en": "T"], "subtitle": ["en": "S"], "contents": ["en": "B"],
            "content_available": true, "mutable_content": true, "collapse_id": "c-1", "thread_id": "th",
            "ios_category": "CAT", "ios_interruption_level": "time_sensitive", "ios_relevance_score": 0.5,
            "ios_sound": "ping.aiff", "ios_badgeType": "SetTo", "ios_badgeCount": 3,
            "target_content_identifier": "win-1", "data": ["order": 7],
        ], badge: 3)
        #expect(request.headers.collapseID == "c-1")
        #expect(request.payload == [
            "aps": [
                "alert": ["title": "T", "subtitle": "S", "body": "B"],
                "badge": 3, "sound": "ping.aiff", "thread-id": "th", "category": "CAT",
                "content-available": 1, "mutable-content": 1, "interruption-level": "time-sensitive",
                "relevance-score": 0.5, "target-content-id": "win-1",
            ],
            "order": 7,
        ])
    }

    @Test(arguments: InterruptionLevel.allCases)
    func interruptionLevelsUseTheAPNsSpelling(_ level: InterruptionLevel) throws {
        let request = try Self.build(["contents": ["en": "x"], "ios_interruption_level": .string(level.rawValue)])
        let expected = ["passive": "passive", "active": "active", "time_sensitive": "time-sensitive", "critical": "critical"]
        #expect(request.payload.objectValue?["aps"]?.objectValue?["interruption-level"] == .string(expected[level.rawValue]!))
    }

    @Test func aWidgetReloadCarriesOnlyItsFlag() throws {
        let request = try Self.build(["push_type": "widgets"])
        #expect(request.headers.pushType == .widgets)
        #expect(request.headers.topic == "com.example.app.push-type.widgets")
        #expect(request.headers.priority == 5)
        #expect(request.payload == ["aps": ["content-changed": true]])
        #expect(try Self.parse(["push_type": "widgets"]).get().kind.tokenKind == .widget)
    }

    @Test func aWidgetReloadRefusesContent() {
        #expect(Self.problems(["push_type": "widgets", "contents": ["en": "x"], "ios_sound": "a"])
                == [NotificationSendParser.Messages.widgetsOnlyReload + "contents, ios_sound"])
    }

    @Test func collapseIDsAreAtMost64PrintableASCIIBytes() throws {
        let ok = String(repeating: "k", count: 64)
        #expect(try Self.build(["contents": ["en": "x"], "collapse_id": .string(ok)]).headers.collapseID == ok)
        #expect(Self.problems(["contents": ["en": "x"], "collapse_id": .string(ok + "a")])
                == [NotificationSendParser.Messages.collapseIDTooLong])
        // 64 bytes, but not ASCII: it becomes a header.
        #expect(Self.problems(["contents": ["en": "x"], "collapse_id": .string(String(repeating: "é", count: 32))])
                == [NotificationSendParser.Messages.collapseIDNotASCII])
    }

    @Test func ttlBecomesTheExpiration() {
        #expect(NotificationPayload.expiration(sendTime: 1000.7, ttl: 60) == 1060)
        #expect(NotificationPayload.expiration(sendTime: 1000, ttl: 0) == 0)
        #expect(NotificationPayload.expiration(sendTime: 1000, ttl: nil) == 1000 + NotificationPayload.defaultTTL)
    }

    @Test func badgesParse() throws {
        #expect(try Self.parse(["contents": ["en": "x"], "ios_badgeType": "Increase", "ios_badgeCount": -1]).get().badge == .increase(-1))
        #expect(try Self.parse(["contents": ["en": "x"], "ios_badgeType": "None"]).get().badge == NotificationBadge.none)
        #expect(Self.problems(["contents": ["en": "x"], "ios_badgeType": "SetTo"]) == [NotificationSendParser.Messages.badgeCountRequired])
        #expect(Self.problems(["contents": ["en": "x"], "ios_badgeType": "Sometimes", "ios_badgeCount": 1])
                == [NotificationSendParser.Messages.badgeType])
    }

    @Test func aPayloadOver4096BytesIsRefused() throws {
        let send = try Self.parse(["contents": ["en": .string(String(repeating: "x", count: 5000))]]).get()
        let input = NotificationPushInput(send: send, body: send.contents?["en"], bundleID: "b", apnsID: Self.apnsID, expiration: 0)
        guard case .failure(.tooLarge(let bytes)) = NotificationPayload.build(input) else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(bytes > 4096)
    }

    @Test func everyBadFieldIsNamed() {
        let problems = NotificationSendParser.parse([
            "contents": "x", "data": [1], "ios_interruption_level": "loud", "priority": 7, "ttl": -1,
            "push_type": "voip", "colour": "red",
        ]).failureMessages
        #expect(problems == [
            #"contents must be an object of strings, got string"#,
            "data must be an object, got array",
            NotificationSendParser.Messages.interruptionLevel,
            "priority must be 5 or 10",
            "ttl must be an integer from 0 to 2419200",
            NotificationSendParser.Messages.pushType,
            "use exactly one targeting method",
            "unknown field 'colour'",
        ])
    }

    @Test func nothingToShowIsRefused() {
        #expect(Self.problems([:]) == [NotificationSendParser.Messages.nothingToShow])
        #expect(Self.problems(["data": ["aps": 1], "contents": ["en": "x"]]) == [NotificationSendParser.Messages.dataHoldsAPS])
    }
}

extension Result where Failure == InvalidInput {
    var failureMessages: [String] {
        guard case .failure(let error) = self else { return [] }
        return error.messages
    }
}
