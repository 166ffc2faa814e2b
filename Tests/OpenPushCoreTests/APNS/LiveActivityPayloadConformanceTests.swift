import Testing
import OpenPushCore

/// The contract's Part 2 example requests, parsed by the send-route validator and built for one
/// device, against the payload the contract's "APNs behaviour" and "Lifecycle" describe.
@Suite struct LiveActivityPayloadContractExampleTests {
    static let now = 1_756_598_460.0
    static let apnsID = "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81"

    /// One device's push for a validated send; the examples carry no Liquid, so `en` is the text.
    static func input(_ send: LiveActivitySend, messageID: String, activityType: String, registeredStaleDate: Double? = nil)
        -> LiveActivityPushInput
    {
        LiveActivityPushInput(
            event: send.event, messageID: messageID, activityID: send.activityID, activityType: activityType,
            attributes: send.attributes, contentState: send.contentState,
            title: send.headings?["en"], body: send.contents?["en"], sound: send.sound,
            relevanceScore: send.relevanceScore, explicitPriority: send.priority,
            requestedStaleDate: send.staleDate, registeredStaleDate: registeredStaleDate,
            requestedDismissalDate: send.dismissalDate,
            bundleID: "com.example.delivery", apnsID: apnsID, now: now, timestamp: 1_756_598_460)
    }

    static func body(_ text: String) throws -> JSONObject {
        try #require(try JSONValue.parse(text).objectValue)
    }

    static let ids: JSONValue = ["notification_id": "msg_01hq8d", "activity_id": "order-58213"]
    static let updateIDs: JSONValue = ["notification_id": "msg_01hq8e", "activity_id": "order-58213"]

    @Test func theStartExample() throws {
        let body = try Self.body("""
            {
              "event": "start",
              "activity_id": "order-58213",
              "name": "Order 58213 out for delivery",
              "event_attributes": {"orderNumber": "58213", "storeName": "Bridge Road"},
              "event_updates": {"status": "out_for_delivery", "etaMinutes": 24},
              "headings": {"en": "On the way"},
              "contents": {"en": "Arriving in about 24 minutes"},
              "priority": 10,
              "ios_relevance_score": 0.8,
              "stale_date": 1756627200,
              "idempotency_key": "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0",
              "include_aliases": {"external_id": ["u-91422"]}
            }
            """)
        let send = try LiveActivitySendParser.parseStart(body).get()
        let request = try LiveActivityPayload.build(Self.input(send, messageID: "msg_01hq8d", activityType: "DeliveryAttributes")).get()
        #expect(request.headers.fields.map(\.value) == [
            "liveactivity", "com.example.delivery.push-type.liveactivity", "10", "1756684860", Self.apnsID,
        ])
        let expected: JSONValue = ["aps": [
            "timestamp": 1_756_598_460,
            "event": "start",
            "content-state": ["status": "out_for_delivery", "etaMinutes": 24, "openpush": Self.ids],
            "stale-date": 1_756_627_200,
            "relevance-score": 0.8,
            "input-push-token": 1,
            "attributes-type": "DeliveryAttributes",
            "attributes": ["orderNumber": "58213", "storeName": "Bridge Road", "openpush": Self.ids],
            "alert": ["title": "On the way", "body": "Arriving in about 24 minutes"],
        ]]
        #expect(try JSONValue.parse(request.payloadBytes) == expected)
    }

    @Test func theUpdateExample() throws {
        let body = try Self.body("""
            {
              "event": "update",
              "name": "Order 58213 ETA 8 min",
              "event_updates": {"status": "nearby", "etaMinutes": 8},
              "headings": {"en": "Almost there"},
              "contents": {"en": "Arriving in about 8 minutes"},
              "priority": 5
            }
            """)
        let send = try LiveActivitySendParser.parseUpdateOrEnd(body, activityID: "order-58213").get()
        // The registered row of the contract's register example: stale_at 1756627200.
        let input = Self.input(send, messageID: "msg_01hq8e", activityType: "DeliveryAttributes", registeredStaleDate: 1_756_627_200)
        let request = try LiveActivityPayload.build(input).get()
        #expect(request.headers.priority == 5)
        let expected: JSONValue = ["aps": [
            "timestamp": 1_756_598_460,
            "event": "update",
            "content-state": ["status": "nearby", "etaMinutes": 8, "openpush": Self.updateIDs],
            "stale-date": 1_756_627_200,
            "alert": ["title": "Almost there", "body": "Arriving in about 8 minutes"],
        ]]
        #expect(try JSONValue.parse(request.payloadBytes) == expected)
    }

    @Test func theEndExample() throws {
        let body = try Self.body("""
            {
              "event": "end",
              "name": "Order 58213 delivered",
              "event_updates": {"status": "delivered", "etaMinutes": 0},
              "headings": {"en": "Delivered"},
              "contents": {"en": "Left at your front door"},
              "dismissal_date": 1756601000
            }
            """)
        let send = try LiveActivitySendParser.parseUpdateOrEnd(body, activityID: "order-58213").get()
        let input = Self.input(send, messageID: "msg_01hq8e", activityType: "DeliveryAttributes", registeredStaleDate: 1_756_627_200)
        let request = try LiveActivityPayload.build(input).get()
        #expect(request.headers.priority == 10)
        let expected: JSONValue = ["aps": [
            "timestamp": 1_756_598_460,
            "event": "end",
            "content-state": ["status": "delivered", "etaMinutes": 0],
            "dismissal-date": 1_756_601_000,
            "alert": ["title": "Delivered", "body": "Left at your front door"],
        ]]
        #expect(try JSONValue.parse(request.payloadBytes) == expected)
    }

    /// "The body table says priority defaults to 10": DESIGN.md follows "APNs behaviour" instead.
    @Test func anUpdateWithNoPriorityGoesAtFive() throws {
        let body = try Self.body(#"{"event": "update", "name": "n", "event_updates": {"status": "nearby"}}"#)
        let send = try LiveActivitySendParser.parseUpdateOrEnd(body, activityID: "order-58213").get()
        let request = try LiveActivityPayload.build(Self.input(send, messageID: "msg_01hq8e", activityType: "DeliveryAttributes")).get()
        #expect(request.headers.priority == 5)
        #expect(request.headers.priority == send.effectivePriority)
    }
}

/// The Live Activity cases of `seeds/000`: an app whose attributes type is
/// `TaskActivityAttributes`, decoded by ActivityKit with the default `JSONDecoder`.
@Suite struct LiveActivityPayloadSeedTests {
    static let now = 1_760_112_301.0
    static let attributes: JSONObject = ["taskID": "tsk_01jb2m9x4e7q", "keyLabel": "Claude Code"]
    static let contentState: JSONObject = [
        "title": "Add dark mode support",
        "status": "in_progress",
        "progress": 40,
        "note": "Waiting for you",
        "updatedAt": 1_760_112_300.9,
        "question": [
            "id": "qst_01jb2n4r8t", "prompt": "Deploy to production now?", "kind": "confirm", "options": ["Yes", "No"],
        ],
    ]
    static let ids: JSONValue = ["notification_id": "msg_task", "activity_id": "tsk_01jb2m9x4e7q"]

    static func input(_ event: LiveActivityEvent, _ change: (inout LiveActivityPushInput) -> Void = { _ in }) -> LiveActivityPushInput {
        var input = LiveActivityPushInput(
            event: event, messageID: "msg_task", activityID: "tsk_01jb2m9x4e7q", activityType: "TaskActivityAttributes",
            attributes: event == .start ? attributes : nil, contentState: contentState,
            bundleID: "com.example.tasks", watchBundleID: "com.example.tasks.watchkitapp",
            apnsID: "7c1d9e2f-0a3b-4c5d-8e6f-1a2b3c4d5e6f", now: now, timestamp: 1_760_112_301)
        change(&input)
        return input
    }

    static func aps(_ input: LiveActivityPushInput) throws -> JSONObject {
        let request = try LiveActivityPayload.build(input).get()
        return try #require(try JSONValue.parse(request.payloadBytes).objectValue?["aps"]?.objectValue)
    }

    /// A start: attributes-type, attributes and an alert with the key label and the task title;
    /// stale-date 30 minutes out and a relevance score (on the contract's [0, 1] scale).
    @Test func theStart() throws {
        let aps = try Self.aps(Self.input(.start) {
            $0.title = "Claude Code"
            $0.body = "Add dark mode support"
            $0.requestedStaleDate = Self.now + 30 * 60
            $0.relevanceScore = 0.75
        })
        var state = Self.contentState
        state["openpush"] = Self.ids
        var attributes = Self.attributes
        attributes["openpush"] = Self.ids
        let expected: JSONObject = [
            "timestamp": 1_760_112_301,
            "event": "start",
            "content-state": .object(state),
            "stale-date": 1_760_114_101,
            "relevance-score": 0.75,
            "input-push-token": 1,
            "attributes-type": "TaskActivityAttributes",
            "attributes": .object(attributes),
            "alert": ["title": "Claude Code", "body": "Add dark mode support"],
        ]
        #expect(aps == expected)
    }

    /// Keys go through exactly as written (the app decodes them with the default `JSONDecoder`):
    /// no renaming, nulls stay null, fractional seconds stay fractional.
    @Test func theContentStateTravelsLiterally() throws {
        var state = Self.contentState
        state["progress"] = .null
        state["note"] = .null
        state["question"] = .null
        let aps = try Self.aps(Self.input(.update) { $0.contentState = state })
        let sent = try #require(aps["content-state"]?.objectValue)
        #expect(sent["updatedAt"] == .double(1_760_112_300.9))
        #expect(sent["progress"] == .null && sent["note"] == .null && sent["question"] == .null)
        #expect(Set(sent.keys) == Set(state.keys).union(["openpush"]))
    }

    /// The seed sends every Live Activity push at 10; with OpenPush that is an explicit priority.
    @Test func anUpdateAtTenWithItsStaleDate() throws {
        let request = try LiveActivityPayload.build(Self.input(.update) {
            $0.explicitPriority = 10
            $0.requestedStaleDate = Self.now + 30 * 60
            $0.relevanceScore = 1
        }).get()
        #expect(request.headers.priority == 10)
        let aps = try #require(try JSONValue.parse(request.payloadBytes).objectValue?["aps"]?.objectValue)
        #expect(aps["event"] == "update")
        #expect(aps["stale-date"] == 1_760_114_101)
        #expect(aps["relevance-score"] == 1.0)
        #expect(aps["attributes"] == nil && aps["attributes-type"] == nil && aps["input-push-token"] == nil)
    }

    /// The seed's 100/75/50 scale does not survive the contract's clamp: all three become 1.
    @Test(arguments: [100.0, 75.0, 50.0])
    func theSeedsRelevanceScaleIsClamped(_ score: Double) throws {
        #expect(try Self.aps(Self.input(.update) { $0.relevanceScore = score })["relevance-score"] == 1.0)
    }

    /// An end: the final content state and a dismissal date 15 minutes later, either sent or
    /// from an app whose auto-end is 15 minutes.
    @Test(arguments: [true, false])
    func theEndDismissesFifteenMinutesLater(_ viaAutoEnd: Bool) throws {
        let aps = try Self.aps(Self.input(.end) {
            if viaAutoEnd { $0.autoEndMinutes = 15 } else { $0.requestedDismissalDate = Self.now + 15 * 60 }
        })
        let expected: JSONObject = [
            "timestamp": 1_760_112_301,
            "event": "end",
            "content-state": .object(Self.contentState),
            "dismissal-date": 1_760_113_201,
        ]
        #expect(aps == expected)
    }

    @Test(arguments: LiveActivityEvent.allCases)
    func everyPushHasTimestampEventAndContentState(_ event: LiveActivityEvent) throws {
        let aps = try Self.aps(Self.input(event))
        #expect(aps["timestamp"] == 1_760_112_301)
        #expect(aps["event"] == .string(event.rawValue))
        #expect(aps["content-state"]?.objectValue?.isEmpty == false)
    }

    /// "A device with the platform watchos gets the topic of the watch app, if the server has
    /// a bundle ID for it."
    @Test func aWatchGetsTheWatchAppsTopic() throws {
        let watch = try LiveActivityPayload.build(Self.input(.update) { $0.platform = "watchos" }).get()
        let phone = try LiveActivityPayload.build(Self.input(.update)).get()
        #expect(watch.headers.topic == "com.example.tasks.watchkitapp.push-type.liveactivity")
        #expect(phone.headers.topic == "com.example.tasks.push-type.liveactivity")
        #expect(watch.headers.pushType == .liveActivity)
    }

    /// "If APNs answers 410, or 400 with the reason BadDeviceToken" the token is dropped.
    @Test func tokensThatAreNotValid() {
        #expect(APNSResponseClassifier.classify(status: 410, reason: "Unregistered") == .deadToken(.unregistered))
        #expect(APNSResponseClassifier.classify(status: 410, reason: nil) == .deadToken(.unregistered))
        #expect(APNSResponseClassifier.classify(status: 400, reason: "BadDeviceToken") == .deadToken(.badDeviceToken))
        #expect(APNSResponseClassifier.classify(status: 400, reason: "BadTopic") == .permanent(.badTopic))
    }
}
