import Testing
import OpenPushCore

/// Shared fixtures: one activity, one device, one push time.
enum PayloadFixture {
    static let now = 1_756_598_400.75
    static let wholeNow: Int64 = 1_756_598_400
    static let apnsID = "5e8a1f0c-3b7d-4c2e-9a61-0f4d2b8c7e13"
    static let ids: JSONValue = ["notification_id": "msg_01hq8d", "activity_id": "order-58213"]

    static func input(_ event: LiveActivityEvent, _ change: (inout LiveActivityPushInput) -> Void = { _ in }) -> LiveActivityPushInput {
        var input = LiveActivityPushInput(
            event: event, messageID: "msg_01hq8d", activityID: "order-58213", activityType: "DeliveryAttributes",
            attributes: event == .start ? ["orderNumber": "58213"] : nil,
            contentState: ["status": "nearby"],
            bundleID: "com.example.delivery", apnsID: apnsID, now: now, timestamp: 1_756_598_401)
        change(&input)
        return input
    }

    static func request(_ input: LiveActivityPushInput) throws -> APNSRequest {
        try LiveActivityPayload.build(input).get()
    }

    /// The body as APNs would read it: decoded from the bytes on the wire.
    static func decoded(_ request: APNSRequest) throws -> JSONValue {
        try JSONValue.parse(request.payloadBytes)
    }

    static func aps(_ input: LiveActivityPushInput) throws -> JSONObject {
        let request = try request(input)
        let payload = try decoded(request)
        #expect(payload == request.payload)
        #expect(payload.objectValue?.keys == ["aps"])
        return try #require(payload.objectValue?["aps"]?.objectValue)
    }
}

@Suite struct LiveActivityPayloadDefaultsTests {
    typealias F = PayloadFixture

    @Test func aStartCarriesEverythingActivityKitNeeds() throws {
        let request = try F.request(F.input(.start))
        #expect(request.headers == APNSHeaders(
            pushType: .liveActivity, topic: "com.example.delivery.push-type.liveactivity", priority: 10,
            expiration: 1_756_598_400 + 86_400, apnsID: F.apnsID))
        let expected: JSONValue = ["aps": [
            "timestamp": 1_756_598_401,
            "event": "start",
            "content-state": ["status": "nearby", "openpush": F.ids],
            "stale-date": .int(F.wholeNow + 8 * 3600),
            "input-push-token": 1,
            "attributes-type": "DeliveryAttributes",
            "attributes": ["orderNumber": "58213", "openpush": F.ids],
        ]]
        #expect(try F.decoded(request) == expected)
    }

    @Test func anUpdateGoesAtFiveWithTheRegisteredStaleDate() throws {
        let request = try F.request(F.input(.update) { $0.registeredStaleDate = 1_756_627_200 })
        #expect(request.headers.priority == 5)
        #expect(request.headers.topic == "com.example.delivery.push-type.liveactivity")
        let expected: JSONValue = ["aps": [
            "timestamp": 1_756_598_401,
            "event": "update",
            "content-state": ["status": "nearby", "openpush": F.ids],
            "stale-date": 1_756_627_200,
        ]]
        #expect(try F.decoded(request) == expected)
    }

    @Test func anUpdateWithNoStaleDateAnywhereCarriesNone() throws {
        #expect(try F.aps(F.input(.update))["stale-date"] == nil)
    }

    @Test func anEndGoesAtTenWithNoStaleDateNoDismissalAndNoIDBlock() throws {
        let request = try F.request(F.input(.end) { $0.registeredStaleDate = 1_756_627_200 })
        #expect(request.headers.priority == 10)
        let expected: JSONValue = ["aps": [
            "timestamp": 1_756_598_401,
            "event": "end",
            "content-state": ["status": "nearby"],
        ]]
        #expect(try F.decoded(request) == expected)
    }

    @Test func headersGoOnTheWireInOrderWithoutACollapseID() throws {
        let request = try F.request(F.input(.update))
        #expect(request.headers.fields.map(\.name) == ["apns-push-type", "apns-topic", "apns-priority", "apns-expiration", "apns-id"])
        #expect(request.headers.fields.map(\.value) == [
            "liveactivity", "com.example.delivery.push-type.liveactivity", "5", "1756684800", F.apnsID,
        ])
        var withCollapse = request.headers
        withCollapse.collapseID = "order-58213"
        #expect(withCollapse.fields.last! == ("apns-collapse-id", "order-58213"))
    }

    @Test func theBodyIsCompactJSON() throws {
        let request = try F.request(F.input(.end))
        let text = String(decoding: request.payloadBytes, as: UTF8.self)
        #expect(text == #"{"aps":{"timestamp":1756598401,"event":"end","content-state":{"status":"nearby"}}}"#)
    }
}

@Suite struct LiveActivityPayloadOverrideTests {
    typealias F = PayloadFixture

    @Test(arguments: [(LiveActivityEvent.start, 5), (.update, 10), (.end, 5), (.update, 5)])
    func anExplicitPriorityWins(_ event: LiveActivityEvent, _ priority: Int) throws {
        #expect(try F.request(F.input(event) { $0.explicitPriority = priority }).headers.priority == priority)
    }

    @Test(arguments: LiveActivityEvent.allCases)
    func aRequestedStaleDateIsSentOnEveryEvent(_ event: LiveActivityEvent) throws {
        let aps = try F.aps(F.input(event) {
            $0.requestedStaleDate = 1_756_600_000.9
            $0.registeredStaleDate = 1_756_627_200
        })
        #expect(aps["stale-date"] == 1_756_600_000)
    }

    @Test func aStartIgnoresARegisteredStaleDate() throws {
        let aps = try F.aps(F.input(.start) { $0.registeredStaleDate = 1_756_600_000 })
        #expect(aps["stale-date"] == .int(F.wholeNow + 8 * 3600))
    }

    @Test func anEndTakesTheRequestedDismissalDateOverAutoEnd() throws {
        let aps = try F.aps(F.input(.end) {
            $0.requestedDismissalDate = 1_756_601_000
            $0.autoEndMinutes = 15
        })
        #expect(aps["dismissal-date"] == 1_756_601_000)
    }

    @Test(arguments: [1, 5, 15, 60, 120])
    func anEndWithoutADismissalDateUsesAutoEndMinutes(_ minutes: Int) throws {
        let aps = try F.aps(F.input(.end) { $0.autoEndMinutes = minutes })
        #expect(aps["dismissal-date"] == .int(F.wholeNow + Int64(minutes) * 60))
    }

    @Test(arguments: [LiveActivityEvent.start, .update])
    func onlyAnEndCarriesADismissalDate(_ event: LiveActivityEvent) throws {
        let aps = try F.aps(F.input(event) {
            $0.requestedDismissalDate = 1_756_601_000
            $0.autoEndMinutes = 15
        })
        #expect(aps["dismissal-date"] == nil)
    }

    @Test func theTimestampIsTheCallersAndTheExpirationIsADayOut() throws {
        let request = try F.request(F.input(.update) {
            $0.timestamp = 1_756_700_000
            $0.now = 1_756_650_000.2
        })
        #expect(try F.decoded(request).objectValue?["aps"]?.objectValue?["timestamp"] == 1_756_700_000)
        #expect(request.headers.expiration == 1_756_650_000 + 86_400)
        #expect(request.headers.apnsID == F.apnsID)
    }

    @Test(arguments: [(-0.5, 0.0), (0.0, 0.0), (0.3, 0.3), (1.0, 1.0), (1.7, 1.0), (100.0, 1.0)])
    func theRelevanceScoreIsClamped(_ given: Double, _ sent: Double) throws {
        #expect(try F.aps(F.input(.update) { $0.relevanceScore = given })["relevance-score"] == .double(sent))
    }

    @Test func noRelevanceScoreWhenNoneOrNaN() throws {
        #expect(try F.aps(F.input(.update))["relevance-score"] == nil)
        #expect(try F.aps(F.input(.update) { $0.relevanceScore = .nan })["relevance-score"] == nil)
    }
}

@Suite struct LiveActivityPayloadTopicTests {
    typealias F = PayloadFixture

    @Test(arguments: [
        ("watchos", "com.example.delivery.watchkitapp", "com.example.delivery.watchkitapp.push-type.liveactivity"),
        ("watchos", nil, "com.example.delivery.push-type.liveactivity"),
        ("watchos", "", "com.example.delivery.push-type.liveactivity"),
        ("ios", "com.example.delivery.watchkitapp", "com.example.delivery.push-type.liveactivity"),
        ("macos", "com.example.delivery.watchkitapp", "com.example.delivery.push-type.liveactivity"),
    ] as [(String, String?, String)])
    func aWatchGetsTheWatchAppsTopicWhenThereIsOne(_ platform: String, _ watchBundleID: String?, _ topic: String) throws {
        let request = try F.request(F.input(.start) {
            $0.platform = platform
            $0.watchBundleID = watchBundleID
        })
        #expect(request.headers.topic == topic)
    }

    @Test func otherPushTypesSpellTheirTopics() {
        #expect(APNSPushType.alert.topic(bundleID: "com.a", watchBundleID: nil, platform: "ios") == "com.a")
        #expect(APNSPushType.background.topic(bundleID: "com.a", watchBundleID: "com.a.w", platform: "watchos") == "com.a.w")
        #expect(APNSPushType.widgets.topic(bundleID: "com.a", watchBundleID: nil, platform: "ios") == "com.a.push-type.widgets")
    }
}

@Suite struct LiveActivityPayloadAlertTests {
    typealias F = PayloadFixture

    static func alert(title: String? = nil, body: String? = nil, sound: String? = nil) throws -> JSONValue? {
        try F.aps(F.input(.update) {
            $0.title = title
            $0.body = body
            $0.sound = sound
        })["alert"]
    }

    @Test func bothStringsMakeAnAlert() throws {
        #expect(try Self.alert(title: "Almost there", body: "Arriving in about 8 minutes")
            == ["title": "Almost there", "body": "Arriving in about 8 minutes"])
    }

    /// ActivityKit's alert has both members; the missing one goes as "".
    @Test func oneStringKeepsBothKeys() throws {
        #expect(try Self.alert(title: "Almost there") == ["title": "Almost there", "body": ""])
        #expect(try Self.alert(title: "  ", body: "Arriving") == ["title": "", "body": "Arriving"])
    }

    @Test func blankStringsMakeNoAlert() throws {
        #expect(try Self.alert() == nil)
        #expect(try Self.alert(title: "", body: " \n") == nil)
    }

    /// A Live Activity alert carries its sound inside `alert`.
    @Test func theSoundGoesInsideTheAlert() throws {
        #expect(try Self.alert(title: "T", body: "B", sound: "chime.aiff") == ["title": "T", "body": "B", "sound": "chime.aiff"])
        #expect(try Self.alert(sound: "default") == ["sound": "default"])
        #expect(try Self.alert(title: "T", sound: " ") == ["title": "T", "body": ""])
    }

    @Test func anEndCanAlertToo() throws {
        let aps = try F.aps(F.input(.end) { $0.title = "Delivered" })
        #expect(aps["alert"] == ["title": "Delivered", "body": ""])
    }
}

@Suite struct LiveActivityPayloadIDInjectionTests {
    typealias F = PayloadFixture

    @Test func aStartWithNoAttributesStillCarriesTheIDBlock() throws {
        let aps = try F.aps(F.input(.start) { $0.attributes = nil })
        #expect(aps["attributes"] == ["openpush": F.ids])
    }

    /// The blocks are ours: a caller key of the same name is replaced, the rest kept.
    @Test func ourBlockReplacesACallersKeyOfTheSameName() throws {
        let aps = try F.aps(F.input(.start) {
            $0.attributes = ["openpush": "mine", "orderNumber": "58213"]
            $0.contentState = ["openpush": ["notification_id": "forged"], "status": "nearby"]
        })
        #expect(aps["attributes"] == ["openpush": F.ids, "orderNumber": "58213"])
        #expect(aps["content-state"] == ["openpush": F.ids, "status": "nearby"])
    }

    @Test func theOneSignalAliasOnAStart() throws {
        let aps = try F.aps(F.input(.start) { $0.onesignalAlias = true })
        #expect(aps["attributes"] == [
            "orderNumber": "58213", "openpush": F.ids, "onesignal": ["activityId": "order-58213"],
        ])
        #expect(aps["content-state"] == [
            "status": "nearby", "openpush": F.ids, "onesignal": ["notificationId": "msg_01hq8d"],
        ])
    }

    @Test func theOneSignalAliasOnAnUpdate() throws {
        let aps = try F.aps(F.input(.update) { $0.onesignalAlias = true })
        #expect(aps["content-state"] == [
            "status": "nearby", "openpush": F.ids, "onesignal": ["notificationId": "msg_01hq8d"],
        ])
        #expect(aps["attributes"] == nil)
    }

    @Test func anEndIsNotStampedEvenWithTheAlias() throws {
        let aps = try F.aps(F.input(.end) { $0.onesignalAlias = true })
        #expect(aps["content-state"] == ["status": "nearby"])
    }

    @Test func withoutTheAliasACallersOneSignalKeyIsLeftAlone() throws {
        let aps = try F.aps(F.input(.update) { $0.contentState = ["onesignal": 1, "status": "nearby"] })
        #expect(aps["content-state"] == ["onesignal": 1, "status": "nearby", "openpush": F.ids])
    }
}

@Suite struct LiveActivityPayloadLimitTests {
    typealias F = PayloadFixture

    static func padded(_ count: Int) -> LiveActivityPushInput {
        F.input(.update) { $0.contentState = ["pad": .string(String(repeating: "x", count: count))] }
    }

    @Test func exactly4096BytesIsSentAnd4097IsNot() throws {
        let base = try F.request(Self.padded(0)).payloadBytes.count
        let fits = 4096 - base
        let atLimit = try F.request(Self.padded(fits))
        #expect(atLimit.payloadBytes.count == 4096)
        #expect(LiveActivityPayload.build(Self.padded(fits + 1)) == .failure(.tooLarge(bytes: 4097)))
        #expect(PayloadProblem.tooLarge(bytes: 4097).reason == .payloadTooLarge)
    }

    @Test func theLimitCountsBytesNotCharacters() throws {
        let base = try F.request(Self.padded(0)).payloadBytes.count
        // "é" is two bytes in UTF-8.
        let input = F.input(.update) { $0.contentState = ["pad": .string(String(repeating: "é", count: (4096 - base) / 2 + 1))] }
        guard case .failure(.tooLarge(let bytes)) = LiveActivityPayload.build(input) else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(bytes > 4096)
    }
}

@Suite struct LiveActivityTimestampTests {
    @Test(arguments: [
        (1_000.9, nil, 1_000),
        (1_000.9, 999, 1_000),
        (1_000.0, 1_000, 1_001),
        (1_000.0, 5_000, 5_001),
    ] as [(Double, Int?, Int)])
    func nextTimestamp(_ now: Double, _ previous: Int?, _ next: Int) {
        #expect(LiveActivityPayload.nextTimestamp(now: now, previous: previous) == next)
    }

    /// Bursts within one second and a clock that steps back still give increasing values.
    @Test func aSequenceIsStrictlyIncreasing() {
        let clock = [100.0, 100.1, 100.2, 99.5, 101.0, 101.0, 250.7, 240.0]
        var previous: Int?
        var stamps: [Int] = []
        for now in clock {
            let next = LiveActivityPayload.nextTimestamp(now: now, previous: previous)
            stamps.append(next)
            previous = next
        }
        #expect(stamps == [100, 101, 102, 103, 104, 105, 250, 251])
    }
}
