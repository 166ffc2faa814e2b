import Testing
import OpenPushCore

/// `apns_push_type_override` of an extra token kind: what each kind accepts and refuses, the
/// VoIP payload limit, and the push each becomes (push type, topic, priority, expiration,
/// payload), built and planned without I/O.
@Suite struct NotificationPushTypesTests {
    typealias Messages = NotificationSendParser.PushTypeMessages
    static let apnsID = "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81"

    static func parse(_ fields: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var body: JSONObject = ["app_id": "app_1", "include_subscription_ids": ["sub_1"]]
        for (key, value) in fields { body[key] = value }
        return NotificationSendParser.parse(body)
    }

    static func problems(_ fields: JSONObject) -> [String] {
        guard case .failure(let error) = parse(fields) else { return [] }
        return error.messages
    }

    static func build(_ fields: JSONObject, watchBundleID: String? = nil, expiration: Int = 1_800_000_000) throws -> APNSRequest {
        let send = try parse(fields).get()
        return try NotificationPayload.build(NotificationPushInput(
            send: send, title: send.headings?["en"], body: send.contents?["en"], bundleID: "com.example.app",
            watchBundleID: watchBundleID, apnsID: apnsID, expiration: expiration)).get()
    }

    // MARK: parsing

    @Test(arguments: ExtraTokenKind.allCases)
    func eachKindIsStoredAsItsOwnKindWithoutContents(_ kind: ExtraTokenKind) throws {
        let data: JSONObject = kind == .fileProvider ? ["container-identifier": "root"] : ["k": "v"]
        let send = try Self.parse(["apns_push_type_override": .string(kind.rawValue), "data": .object(data)]).get()
        #expect(send.kind.extraKind == kind)
        #expect(send.kind.tokenKind.extraKind == kind)
        // The stored form keeps the kind, so the planner sees it.
        #expect(try StoredSend.decodeNotification(StoredSend.encode(send)).kind == send.kind)
    }

    @Test func alertAndBackgroundKeepTheirMeaningAndOthersAreRefused() throws {
        #expect(try Self.parse(["apns_push_type_override": "alert", "contents": ["en": "x"]]).get().kind == .alert)
        #expect(try Self.parse(["apns_push_type_override": "background", "content_available": true]).get().kind == .background)
        #expect(Self.problems(["apns_push_type_override": "liveactivity", "contents": ["en": "x"]]) == [Messages.unknown])
        #expect(Messages.unknown == "apns_push_type_override must be one of: alert, background, voip, location, pushtotalk, complication, fileprovider")
    }

    @Test func kindsWithoutAUIRefuseTheTextsAndAlertFieldsByName() {
        #expect(Self.problems(["apns_push_type_override": "location", "headings": ["en": "h"], "contents": ["en": "c"],
                               "ios_sound": "a.caf", "ios_badgeType": "SetTo", "ios_badgeCount": 1,
                               "buttons": [["id": "a", "text": "A"]], "ios_attachments": ["a": "b.png"]]) == [
            Messages.refused("headings", .location), Messages.refused("contents", .location),
            Messages.refused("ios_sound", .location), Messages.refused("ios_badgeType", .location),
            Messages.refused("ios_badgeCount", .location), Messages.refused("ios_attachments", .location),
            Messages.refused("buttons", .location),
        ])
        for kind in [ExtraTokenKind.pushToTalk, .complication] {
            #expect(Self.problems(["apns_push_type_override": .string(kind.rawValue), "subtitle": ["en": "s"],
                                   "content_available": true]) == [Messages.refused("subtitle", kind),
                                                                   Messages.refused("content_available", kind)])
        }
        #expect(Messages.refused("headings", .location)
                == #"headings cannot be sent with apns_push_type_override "location": a location push wakes the Location Push Service Extension and shows nothing"#)
    }

    @Test func voipCarriesTextsButNoAlertOnlyFields() throws {
        #expect(Self.problems(["apns_push_type_override": "voip", "headings": ["en": "Ada"], "contents": ["en": "calling"],
                               "data": ["call_id": "c1"]]).isEmpty)
        #expect(Self.problems(["apns_push_type_override": "voip", "ios_sound": "ring.caf", "url": "https://x", "mutable_content": true])
                == [Messages.refused("ios_sound", .voip), Messages.refused("mutable_content", .voip), Messages.refused("url", .voip)])
        let request = try Self.build(["apns_push_type_override": "voip", "headings": ["en": "Ada"], "data": ["call_id": "c1"]])
        #expect(request.payload == ["aps": ["alert": ["title": "Ada"]], "call_id": "c1"])
    }

    @Test func applesFixedPrioritiesAndPushToTalksTTLAreChecked() {
        #expect(Self.problems(["apns_push_type_override": "voip", "priority": 5]) == [Messages.priority(.voip, 10)])
        #expect(Self.problems(["apns_push_type_override": "fileprovider", "priority": 10, "data": ["container-identifier": "r"]])
                == [Messages.priority(.fileProvider, 5)])
        #expect(Self.problems(["apns_push_type_override": "voip", "priority": 10]).isEmpty)
        #expect(Self.problems(["apns_push_type_override": "complication", "priority": 5]).isEmpty)
        #expect(Self.problems(["apns_push_type_override": "pushtotalk", "ttl": 30]) == [Messages.pushToTalkTTL])
        #expect(Self.problems(["apns_push_type_override": "pushtotalk", "ttl": 0]).isEmpty)
    }

    @Test func aFileProviderPushNeedsItsContainerAndNothingElse() {
        #expect(Self.problems(["apns_push_type_override": "fileprovider"]) == [Messages.containerIdentifier])
        #expect(Self.problems(["apns_push_type_override": "fileprovider", "data": ["container-identifier": ""]])
                == [Messages.containerIdentifier])
        #expect(Self.problems(["apns_push_type_override": "fileprovider", "data": ["container-identifier": 3]])
                == [Messages.containerIdentifier])
        #expect(Self.problems(["apns_push_type_override": "fileprovider", "data": ["container-identifier": "r", "extra": 1]])
                == [Messages.fileProviderData("extra")])
        #expect(Self.problems(["apns_push_type_override": "fileprovider", "data": ["container-identifier": "r", "domain": "d"]])
                .isEmpty)
    }

    /// `{"k":"…"}` is the text plus 8 bytes.
    static func voipData(payloadBytes: Int) -> JSONObject {
        ["k": .string(String(repeating: "x", count: payloadBytes - 8))]
    }

    @Test func aVoIPPayloadMayBe5120BytesAndNoMore() throws {
        let fits = Self.voipData(payloadBytes: 5120)
        #expect(JSONValue.object(fits).serializedBytes.count == 5120)
        #expect(Self.problems(["apns_push_type_override": "voip", "data": .object(fits)]).isEmpty)
        #expect(try Self.build(["apns_push_type_override": "voip", "data": .object(fits)]).payloadBytes.count == 5120)
        #expect(Self.problems(["apns_push_type_override": "voip", "data": .object(Self.voipData(payloadBytes: 5121))])
                == [Messages.voipTooLarge(5121)])
        #expect(Messages.voipTooLarge(5121) == "the VoIP payload is 5121 bytes: at most 5120 bytes")
        // The texts count too, at their longest language.
        let texts: JSONObject = ["apns_push_type_override": "voip", "data": .object(Self.voipData(payloadBytes: 5100)),
                                 "headings": ["en": "Ada", "de": .string(String(repeating: "y", count: 40))]]
        #expect(Self.problems(texts).first?.hasPrefix("the VoIP payload is 51") == true)
        // Every other kind keeps APNs' 4 KB.
        let location = NotificationSendParser.parse(["include_subscription_ids": ["s"], "apns_push_type_override": "location",
                                                     "data": .object(Self.voipData(payloadBytes: 4100))])
        let send = try location.get()
        let built = NotificationPayload.build(NotificationPushInput(send: send, bundleID: "b", apnsID: Self.apnsID, expiration: 0))
        #expect(built.failure == .tooLarge(bytes: 4100))
    }

    // MARK: the push

    @Test func eachKindHasApplesPushTypeTopicPriorityExpirationAndPayload() throws {
        let voip = try Self.build(["apns_push_type_override": "voip", "data": ["call_id": "c1"]])
        #expect(voip.headers.pushType == .voip && voip.headers.topic == "com.example.app.voip")
        #expect(voip.headers.priority == 10 && voip.payload == ["call_id": "c1"])
        let location = try Self.build(["apns_push_type_override": "location"])
        #expect(location.headers.pushType == .location && location.headers.topic == "com.example.app.location-query")
        #expect(location.headers.priority == 10 && location.payload == [:])
        let talk = try Self.build(["apns_push_type_override": "pushtotalk", "data": ["channel": "c"]])
        #expect(talk.headers.pushType == .pushToTalk && talk.headers.topic == "com.example.app.voip-ptt")
        #expect(talk.headers.priority == 10 && talk.payload == ["channel": "c"])
        let complication = try Self.build(["apns_push_type_override": "complication", "priority": 5],
                                          watchBundleID: "com.example.app.watchkitapp")
        #expect(complication.headers.pushType == .complication)
        #expect(complication.headers.topic == "com.example.app.watchkitapp.complication" && complication.headers.priority == 5)
        #expect(try Self.build(["apns_push_type_override": "complication"]).headers.topic == "com.example.app.complication")
        #expect(try Self.build(["apns_push_type_override": "complication"]).headers.priority == 10)
        let files = try Self.build(["apns_push_type_override": "fileprovider", "data": ["container-identifier": "root"]])
        #expect(files.headers.pushType == .fileProvider && files.headers.topic == "com.example.app.pushkit.fileprovider")
        #expect(files.headers.priority == 5 && files.payload == ["container-identifier": "root"])
    }

    @Test func voipWithoutTTLAndPushToTalkAreTriedOnce() throws {
        let voip = try Self.parse(["apns_push_type_override": "voip"]).get()
        #expect(NotificationPayload.expiration(sendTime: 1000, ttl: nil, kind: voip.kind) == 0)
        #expect(NotificationPayload.expiration(sendTime: 1000, ttl: 60, kind: voip.kind) == 1060)
        #expect(NotificationPayload.expiration(sendTime: 1000, ttl: nil, kind: .pushToTalk) == 0)
        #expect(NotificationPayload.expiration(sendTime: 1000, ttl: nil, kind: .location) == 1000 + NotificationPayload.defaultTTL)
        #expect(DeliveryLane.forNotification(interruptionLevel: nil, kind: .voip) == .urgent)
        #expect(DeliveryLane.forNotification(interruptionLevel: nil, kind: .location) == .bulk)
    }

    // MARK: planning

    static func planned(_ kind: ExtraTokenKind, platform: String = "ios", environment: DeviceEnvironment = .production,
                        extraToken: String?) throws -> Result<DeliveryPlanner.Plan, DeliveryPlanner.Refusal> {
        let data: JSONObject = kind == .fileProvider ? ["container-identifier": "root"] : [:]
        let send = try parse(["apns_push_type_override": .string(kind.rawValue), "data": .object(data)]).get()
        var context = DeliveryContext()
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_1", notification: send, sendTime: 1000))
        context.add(DeliveryContext.App(id: "app_1", bundleID: "com.example.app"))
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_1", platform: platform, environment: environment,
                                                 token: String(repeating: "0d", count: 32)))
        // Another app's device of the same id holds a token of the kind: never this one's.
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_2", token: String(repeating: "0e", count: 32)))
        context.addExtraToken(String(repeating: "ee", count: 32), kind: kind, subscriptionID: "sub_1", appID: "app_2")
        if let extraToken { context.addExtraToken(extraToken, kind: kind, subscriptionID: "sub_1", appID: "app_1") }
        let claimed = ClaimedDelivery(id: 0, apnsID: apnsID, messageID: "msg_1", appID: "app_1", subscriptionID: "sub_1",
                                      liveActivityID: nil, tokenKind: send.kind.tokenKind, token: "", badge: nil, attempts: 1,
                                      createdAt: 1000)
        let delivery = try #require(context.withCurrentTokens([claimed]).first)
        if let extraToken { #expect(delivery.token == extraToken) }
        return DeliveryPlanner.plan(delivery, context: context, now: 1001)
    }

    @Test(arguments: ExtraTokenKind.allCases)
    func aDeviceWithoutATokenOfTheKindIsCountedNotSent(_ kind: ExtraTokenKind) throws {
        #expect(try Self.planned(kind, extraToken: nil).failure == .suppressed(.noToken))
        // Android devices hold none: counted the same way.
        #expect(try Self.planned(kind, platform: "android", extraToken: String(repeating: "aa", count: 32)).failure
                == .suppressed(.noToken))
    }

    @Test(arguments: ExtraTokenKind.allCases)
    func theExtraTokenTakesItsDevicesEnvironment(_ kind: ExtraTokenKind) throws {
        for environment in DeviceEnvironment.allCases {
            let plan = try Self.planned(kind, environment: environment, extraToken: String(repeating: "ab", count: 32)).get()
            guard case .apns(let request, let sentTo) = plan.push else {
                Issue.record("not an APNs push")
                continue
            }
            #expect(sentTo == environment)
            #expect(request.headers.pushType == kind.pushType && request.headers.apnsID == Self.apnsID)
        }
    }

    @Test func deviceTokenNotForTopicKillsAnExtraTokenOnly() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxDelay: 1)
        func delivery(_ kind: TokenKind) -> ClaimedDelivery {
            ClaimedDelivery(id: 0, apnsID: Self.apnsID, messageID: "m", appID: "a", subscriptionID: "s", liveActivityID: nil,
                            tokenKind: kind, token: "t", badge: nil, attempts: 1, createdAt: 0)
        }
        let verdict = APNSResponseClassifier.classify(status: 400, reason: "DeviceTokenNotForTopic")
        let voip = DeliveryOutcome.decide(delivery(.voip), verdict: verdict, policy: policy)
        #expect(voip.0 == .finished(.error, reason: "DeviceTokenNotForTopic"))
        #expect(voip.1 == .deadToken(delivery(.voip), invalidSince: nil))
        #expect(DeliveryOutcome.decide(delivery(.device), verdict: verdict, policy: policy).1 == nil)
    }
}
