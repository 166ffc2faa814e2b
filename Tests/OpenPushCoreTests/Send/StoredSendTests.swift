import Testing
import OpenPushCore

/// `StoredSend`: every field and every enum case survives encode → JSON text → decode, and a
/// stored form that changed shape is refused with its reason.
@Suite struct StoredSendTests {
    /// Through the text PostgreSQL keeps, as the workers read it.
    static func roundTrip(_ send: NotificationSend) throws -> NotificationSend {
        try StoredSend.decodeNotification(try StoredSend.parse(StoredSend.encode(send).serialized))
    }

    static func roundTrip(_ send: LiveActivitySend) throws -> LiveActivitySend {
        try StoredSend.decodeLiveActivity(try StoredSend.parse(StoredSend.encode(send).serialized))
    }

    static func everyField(kind: NotificationKind = .alert) -> NotificationSend {
        NotificationSend(
            kind: kind, name: "Spring sale", headings: ["en": "Hello {{ first_name }}", "fr": "Bonjour"],
            subtitle: ["en": "Today only"], contents: ["en": "50% off", "de": "50 % Rabatt"],
            targeting: .aliases([AliasTarget(label: "external_id", values: ["u-1", "u-2"]), AliasTarget(label: "crm", values: [])]),
            data: ["deep": ["nested": [1, 2.5, "three", true, nil]], "n": 7], badge: .increase(-2), sound: "chime.caf",
            category: "SALE", threadID: "sales", collapseID: "sale-1", contentAvailable: true, mutableContent: true,
            interruptionLevel: .timeSensitive, relevanceScore: 0.25, priority: 5, ttl: 0, sendAfter: 1_800_000_000.125,
            targetContentIdentifier: "scene-1", appleExcluded: true, launchURL: "myapp://orders/1",
            attachments: [NotificationAttachment(id: "z", url: "https://cdn.example/a.jpg"),
                          NotificationAttachment(id: "a", url: "local.png")],
            buttons: [NotificationButton(id: "later", text: "Later"), NotificationButton(id: "buy", text: "Buy", icon: "ic_buy")],
            apnsAlert: ["loc-key": "SALE", "loc-args": ["50"], "summary-arg-count": 2], summaryArg: "the shop",
            summaryArgCount: 3, idempotencyKey: "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81",
            customData: ["order": ["id": "A-7"], "items": [1, 2]])
    }

    @Test func aNotificationWithEveryFieldRoundTrips() throws {
        let send = Self.everyField()
        #expect(try Self.roundTrip(send) == send)
    }

    @Test func aNotificationWithNoOptionalFieldRoundTripsAndStoresOnlyItsEnvelope() throws {
        let send = NotificationSend(kind: .background, targeting: .subscriptionIDs(["sub_1"]))
        #expect(try Self.roundTrip(send) == send)
        #expect(StoredSend.encode(send) == [
            "v": 1, "type": "notification", "kind": "background", "targeting": ["subscription_ids": ["sub_1"]],
        ])
    }

    @Test(arguments: [
        NotificationSchedule(delay: .localTime(secondsAfterMidnight: 9 * 3600)),
        NotificationSchedule(delay: .lastActive),
        NotificationSchedule(throttleRatePerMinute: 120),
    ])
    func everyScheduleRoundTrips(_ schedule: NotificationSchedule) throws {
        var send = Self.everyField()
        send.schedule = schedule
        #expect(try Self.roundTrip(send).schedule == schedule)
    }

    @Test func theAlertGatesRoundTrip() throws {
        var send = Self.everyField()
        send.gates = AlertGates(dedupeKey: "order-7-shipped", eventAt: 1_800_000_000.25, staleAfterSeconds: 900)
        #expect(try Self.roundTrip(send).gates == send.gates)
        let stored = StoredSend.encode(send).objectValue
        #expect(stored?["dedupe_key"] == "order-7-shipped" && stored?["event_at"] == 1_800_000_000.25 && stored?["stale_after_seconds"] == 900)
    }

    @Test(arguments: [NotificationKind.alert, .background, .widgets])
    func everyKindRoundTrips(_ kind: NotificationKind) throws {
        #expect(try Self.roundTrip(Self.everyField(kind: kind)).kind == kind)
    }

    @Test(arguments: [NotificationBadge.none, .setTo(0), .setTo(12), .increase(3), .increase(-4)])
    func everyBadgeRuleRoundTrips(_ badge: NotificationBadge) throws {
        var send = Self.everyField()
        send.badge = badge
        #expect(try Self.roundTrip(send).badge == badge)
    }

    @Test(arguments: InterruptionLevel.allCases)
    func everyInterruptionLevelRoundTrips(_ level: InterruptionLevel) throws {
        var send = Self.everyField()
        send.interruptionLevel = level
        #expect(try Self.roundTrip(send).interruptionLevel == level)
    }

    @Test(arguments: QuietHoursMode.allCases)
    func everyQuietHoursModeRoundTripsAndTheDefaultIsNotStored(_ mode: QuietHoursMode) throws {
        var send = Self.everyField()
        send.quietHours = mode
        #expect(try Self.roundTrip(send).quietHours == mode)
        #expect(StoredSend.encode(send).objectValue?["quiet_hours"] == (mode == .silence ? nil : .string(mode.rawValue)))
        #expect(Self.refusal(Self.changed { $0["quiet_hours"] = "later" }) == "stored quiet_hours mode 'later' is unknown")
    }

    static let everyCondition: [FilterCondition] = [
        .tag(key: "plan", .text(.equals("gold"))), .tag(key: "plan", .text(.notEquals("free"))),
        .tag(key: "plan", .text(.exists)), .tag(key: "plan", .text(.notExists)),
        .tag(key: "plan", .text(.inArray(["a", "b"]))), .tag(key: "plan", .text(.notInArray([]))),
        .tag(key: "score", .number(.greaterThan, 10.5)), .tag(key: "score", .number(.lessThan, -3)),
        .tag(key: "seen", .timeElapsed(.greaterThan, seconds: 3600)), .tag(key: "seen", .timeElapsed(.lessThan, seconds: 0.5)),
        .language(.equals("en")), .language(.inArray(["fr", "de"])), .country(.notEquals("US")), .country(.notExists),
        .appVersion(.text(.exists)), .appVersion(.version(.greaterThan, "1.10.2")), .appVersion(.version(.lessThan, "2")),
        .sessionCount(.equals(1)), .sessionCount(.notEquals(2)), .sessionCount(.greaterThan(3)), .sessionCount(.lessThan(4.5)),
        .lastSession(.greaterThan, hoursAgo: 24), .lastSession(.lessThan, hoursAgo: 0.25),
        .firstSession(.greaterThan, hoursAgo: 168), .firstSession(.lessThan, hoursAgo: 1),
    ]

    static let everyTargeting: [AudienceTargeting] = [
        .aliases([AliasTarget(label: "external_id", values: ["b", "a"])]),
        .subscriptionIDs([]), .subscriptionIDs(["sub_2", "sub_1"]),
        .segments(included: ["Subscribed Users", "Fans"], excluded: []), .segments(included: ["All"], excluded: ["Inactive Users"]),
        .filters(FilterExpression(groups: [everyCondition])),
        .filters(FilterExpression(groups: [[.country(.equals("GB"))], [.sessionCount(.greaterThan(0)), .language(.exists)]])),
    ]

    @Test(arguments: everyTargeting)
    func everyTargetingMethodRoundTripsInOrder(_ targeting: AudienceTargeting) throws {
        var send = Self.everyField()
        send.targeting = targeting
        #expect(try Self.roundTrip(send).targeting == targeting)
    }

    @Test(arguments: everyCondition)
    func everyFilterConditionRoundTrips(_ condition: FilterCondition) throws {
        var send = Self.everyField()
        send.targeting = .filters(FilterExpression(groups: [[condition]]))
        #expect(try Self.roundTrip(send).targeting == send.targeting)
    }

    // MARK: Live Activities

    static func start() -> LiveActivitySend {
        LiveActivitySend(event: .start, activityID: "order-1", name: "Order 1", attributes: ["order": "1", "items": [1, 2]],
                         contentState: ["status": "out", "eta": 12.5], headings: ["en": "On the way"],
                         contents: ["en": "{{ eta }} minutes", "es": "Pronto"], staleDate: 1_800_000_100,
                         dismissalDate: 1_800_000_200.5, priority: 10, relevanceScore: 1, sound: "ding.caf",
                         idempotencyKey: "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81",
                         targeting: .segments(included: ["Subscribed Users"], excluded: ["Fans"]))
    }

    @Test func aLiveActivityStartWithEveryFieldRoundTrips() throws {
        let send = Self.start()
        #expect(try Self.roundTrip(send) == send)
    }

    @Test(arguments: LiveActivityEvent.allCases)
    func everyEventRoundTripsWithOnlyItsRequiredFields(_ event: LiveActivityEvent) throws {
        let send = LiveActivitySend(event: event, activityID: "a/b c", name: "n", attributes: nil, contentState: ["x": 1],
                                    headings: nil, contents: nil, staleDate: nil, dismissalDate: nil, priority: nil,
                                    relevanceScore: nil, sound: nil, idempotencyKey: nil, targeting: nil)
        #expect(try Self.roundTrip(send) == send)
    }

    // MARK: refusals

    static func refusal(_ value: JSONValue, liveActivity: Bool = false) -> String? {
        do {
            if liveActivity { _ = try StoredSend.decodeLiveActivity(value) } else { _ = try StoredSend.decodeNotification(value) }
            return nil
        } catch {
            return error.reason
        }
    }

    static func changed(_ change: (inout JSONObject) -> Void) -> JSONValue {
        var object = StoredSend.encode(everyField()).objectValue!
        change(&object)
        return .object(object)
    }

    @Test func anotherVersionIsRefusedNamingIt() {
        #expect(Self.refusal(Self.changed { $0["v"] = 2 }) == "the stored send has version 2; this OpenPush reads version 1")
        #expect(Self.refusal(Self.changed { $0["v"] = nil }) == "the stored send has no version 'v'")
        #expect(Self.refusal(Self.changed { $0["v"] = "1" }) == "stored send field 'v' must be an integer, got string")
    }

    @Test func attachmentsAndButtonsKeepTheirOrder() throws {
        let decoded = try Self.roundTrip(Self.everyField())
        #expect(decoded.attachments?.map(\.id) == ["z", "a"])
        #expect(decoded.buttons?.map(\.id) == ["later", "buy"])
    }

    @Test func aChangedShapeIsRefusedNamingTheField() {
        #expect(Self.refusal(Self.changed { $0["colour"] = "red" }) == "stored send field 'colour' is not part of version 1")
        #expect(Self.refusal(Self.changed { $0["contents"] = ["en": 1] }) == "stored send field 'contents.en' must be a string, got number")
        #expect(Self.refusal(Self.changed { $0["kind"] = "mdm" }) == "stored notification kind 'mdm' is unknown")
        #expect(Self.refusal(Self.changed { $0["targeting"] = nil }) == "stored send field 'targeting' is missing")
        #expect(Self.refusal(Self.changed { $0["targeting"] = ["segments": ["included": ["All"]]] })
                == "stored send field 'targeting.segments' needs 'included' and 'excluded'")
        #expect(Self.refusal(Self.changed { $0["targeting"] = ["filters": [[["field": "mood", "test": ["exists": true]]]]] })
                == "stored filter field 'mood' is unknown")
        #expect(Self.refusal(Self.changed { $0["badge"] = ["double": 2] }) == "stored badge rule 'double' is unknown")
        #expect(Self.refusal(Self.changed { $0["interruption_level"] = "loud" }) == "stored interruption level 'loud' is unknown")
        #expect(Self.refusal(Self.changed { $0["buttons"] = [["id": "a"]] }) == "stored send field 'buttons[0].text' is missing")
        #expect(Self.refusal(Self.changed { $0["attachments"] = ["x"] })
                == "stored send field 'attachments[0]' must be an object, got string")
        #expect(Self.refusal(.string("x")) == "the stored send is not a JSON object, got string")
    }

    @Test func aSendOfTheOtherTypeIsRefused() {
        #expect(Self.refusal(StoredSend.encode(Self.start()))
                == "the stored send is a live_activity, expected a notification")
        #expect(Self.refusal(StoredSend.encode(Self.everyField()), liveActivity: true)
                == "the stored send is a notification, expected a live_activity")
        var start = StoredSend.encode(Self.start()).objectValue!
        start["content_state"] = "x"
        #expect(Self.refusal(.object(start), liveActivity: true) == "stored send field 'content_state' must be an object, got string")
    }

    @Test func textThatIsNotJSONIsRefused() {
        #expect(throws: StoredSendError.self) { try StoredSend.parse("{\"v\": ") }
    }
}
