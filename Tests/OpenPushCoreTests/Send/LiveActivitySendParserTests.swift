import Testing
import OpenPushCore

@Suite struct LiveActivitySendParserTests {
    static let start: JSONObject = [
        "event": "start",
        "activity_id": "order-58213",
        "name": "Order 58213 out for delivery",
        "event_attributes": ["orderNumber": "58213"],
        "event_updates": ["status": "out_for_delivery", "etaMinutes": 24],
        "headings": ["en": "On the way"],
        "contents": ["en": "Arriving in about 24 minutes"],
        "priority": 10,
        "ios_relevance_score": 0.8,
        "stale_date": 1_756_627_200,
        "idempotency_key": "0F2A5C31-9d64-4f0e-b8b1-2f7d5c9a41e0",
        "include_aliases": ["external_id": ["u-91422"]],
    ]

    static let update: JSONObject = [
        "event": "update",
        "name": "Order 58213 ETA 8 min",
        "event_updates": ["status": "nearby", "etaMinutes": 8],
        "headings": ["en": "Almost there"],
        "contents": ["en": "Arriving in about 8 minutes"],
        "priority": 5,
    ]

    static func startErrors(_ change: (inout JSONObject) -> Void) -> [String] {
        var body = start
        change(&body)
        guard case .failure(let error) = LiveActivitySendParser.parseStart(body) else { return [] }
        return error.messages
    }

    static func updateErrors(_ change: (inout JSONObject) -> Void) -> [String] {
        var body = update
        change(&body)
        guard case .failure(let error) = LiveActivitySendParser.parseUpdateOrEnd(body, activityID: "order-58213") else { return [] }
        return error.messages
    }

    @Test func parsesTheReferenceStartExample() throws {
        let send = try LiveActivitySendParser.parseStart(Self.start).get()
        #expect(send.event == .start)
        #expect(send.activityID == "order-58213")
        #expect(send.attributes == ["orderNumber": "58213"])
        #expect(send.contentState == ["status": "out_for_delivery", "etaMinutes": 24])
        #expect(send.headings == ["en": "On the way"])
        #expect(send.staleDate == 1_756_627_200)
        #expect(send.effectivePriority == 10)
        #expect(send.relevanceScore == 0.8)
        #expect(send.idempotencyKey == "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0")
        #expect(send.targeting == .aliases([AliasTarget(label: "external_id", values: ["u-91422"])]))
    }

    @Test(arguments: [
        ({ @Sendable (b: inout JSONObject) in b["event"] = "update" }, SendMessages.startEvent),
        ({ @Sendable (b: inout JSONObject) in b["event"] = nil }, #"event must be "start" on this route"#),
        ({ @Sendable (b: inout JSONObject) in b["activity_id"] = "  " }, "activity_id is required"),
        ({ @Sendable (b: inout JSONObject) in b["activity_id"] = nil }, "activity_id is required"),
        ({ @Sendable (b: inout JSONObject) in b["activity_id"] = "a/b" }, "activity_id cannot contain '/'"),
        ({ @Sendable (b: inout JSONObject) in b["event_attributes"] = [:] }, "event_attributes is required and must be a non-empty JSON object"),
        ({ @Sendable (b: inout JSONObject) in b["event_updates"] = nil }, "event_updates is required and must be a non-empty JSON object"),
        ({ @Sendable (b: inout JSONObject) in b["event_updates"] = "x" }, "event_updates is required and must be a non-empty JSON object"),
        ({ @Sendable (b: inout JSONObject) in b["contents"] = ["fr": "Bonjour"] }, #"contents must include an "en" entry"#),
        ({ @Sendable (b: inout JSONObject) in b["contents"] = nil }, #"contents must include an "en" entry"#),
        ({ @Sendable (b: inout JSONObject) in b["headings"] = ["en": " "] }, #"headings must include an "en" entry"#),
        ({ @Sendable (b: inout JSONObject) in b["name"] = .string(String(repeating: "n", count: 129)) }, "name must be 128 characters or fewer"),
        ({ @Sendable (b: inout JSONObject) in b["name"] = nil }, "name must be 128 characters or fewer"),
        ({ @Sendable (b: inout JSONObject) in b["stale_date"] = 1e11 }, "stale_date must be a unix timestamp in seconds, not milliseconds"),
        ({ @Sendable (b: inout JSONObject) in b["stale_date"] = 1_756_627_200_000 }, "stale_date must be a unix timestamp in seconds, not milliseconds"),
        ({ @Sendable (b: inout JSONObject) in b["priority"] = 7 }, "priority must be 5 or 10"),
        ({ @Sendable (b: inout JSONObject) in b["priority"] = "10" }, "priority must be 5 or 10"),
        ({ @Sendable (b: inout JSONObject) in b["ios_relevance_score"] = 1.5 }, "ios_relevance_score must be between 0 and 1"),
        ({ @Sendable (b: inout JSONObject) in b["ios_relevance_score"] = "high" }, "ios_relevance_score must be between 0 and 1"),
        ({ @Sendable (b: inout JSONObject) in b["dismissal_date"] = 1_756_601_000 }, "dismissal_date is not supported on a start"),
        ({ @Sendable (b: inout JSONObject) in b["idempotency_key"] = "not-a-uuid" }, "idempotency_key must be a UUID"),
        ({ @Sendable (b: inout JSONObject) in b["include_aliases"] = nil }, "use exactly one targeting method"),
        ({ @Sendable (b: inout JSONObject) in b["include_subscription_ids"] = ["sub_1"] }, "use exactly one targeting method"),
        ({ @Sendable (b: inout JSONObject) in b["subtitle"] = ["en": "x"] }, "unknown field 'subtitle'"),
        ({ @Sendable (b: inout JSONObject) in b["ios_interruption_level"] = "active" }, "unknown field 'ios_interruption_level'"),
    ] as [(@Sendable (inout JSONObject) -> Void, String)])
    func startRejections(_ change: @Sendable (inout JSONObject) -> Void, _ message: String) {
        #expect(Self.startErrors(change) == [message])
    }

    @Test func excludedSegmentsNeedIncludedOnes() {
        let errors = Self.startErrors { body in
            body["include_aliases"] = nil
            body["excluded_segments"] = ["Churned"]
        }
        #expect(errors == ["excluded_segments requires included_segments", "use exactly one targeting method"])
        let fine = Self.startErrors { body in
            body["include_aliases"] = nil
            body["included_segments"] = ["Subscribed Users"]
            body["excluded_segments"] = ["Churned"]
        }
        #expect(fine.isEmpty)
    }

    @Test func everyProblemIsReportedInAStableOrder() {
        let errors = Self.startErrors { body in
            body["zzz"] = 1
            body["priority"] = 1
            body["event"] = "end"
            body["name"] = nil
            body["is_ios"] = true
        }
        #expect(errors == [SendMessages.startEvent, SendMessages.nameTooLong, SendMessages.priority,
                           "unknown field 'zzz'", "unknown field 'is_ios'"])
    }

    @Test func explicitIDListsAreCapped() {
        let ids = JSONValue.array((0...20_000).map { .string("sub_\($0)") })
        let errors = Self.startErrors { body in
            body["include_aliases"] = nil
            body["include_subscription_ids"] = ids
        }
        #expect(errors == ["include_subscription_ids: at most 20000 ids"])
        let aliases = Self.startErrors { body in body["include_aliases"] = ["external_id": ids] }
        #expect(aliases == ["include_aliases: at most 20000 ids"])
    }

    @Test func filtersAreValidatedWithTheSegmentLanguage() {
        let errors = Self.startErrors { body in
            body["include_aliases"] = nil
            body["filters"] = [["field": "tag", "relation": "=", "value": "x"]]
        }
        #expect(errors == ["filters[0]: tag filters need a key"])
        let fine = Self.startErrors { body in
            body["include_aliases"] = nil
            body["filters"] = [["field": "tag", "key": "level", "op": ">", "value": 3]]
        }
        #expect(fine.isEmpty)
    }

    @Test func theFirstNonBlankSoundWins() throws {
        var body = Self.start
        body["ios_sound"] = " "
        body["sound"] = "chime.caf"
        #expect(try LiveActivitySendParser.parseStart(body).get().sound == "chime.caf")
        body["ios_sound"] = "ding.caf"
        #expect(try LiveActivitySendParser.parseStart(body).get().sound == "ding.caf")
    }

    @Test func parsesUpdateAndEnd() throws {
        let update = try LiveActivitySendParser.parseUpdateOrEnd(Self.update, activityID: "order-58213").get()
        #expect(update.event == .update)
        #expect(update.effectivePriority == 5)
        var end = Self.update
        end["event"] = "end"
        end["priority"] = nil
        end["dismissal_date"] = 1_756_601_000
        let parsed = try LiveActivitySendParser.parseUpdateOrEnd(end, activityID: "order-58213").get()
        #expect(parsed.event == .end)
        #expect(parsed.dismissalDate == 1_756_601_000)
        #expect(parsed.effectivePriority == 10)
        var bare = Self.update
        bare["headings"] = nil
        bare["contents"] = nil
        #expect(try LiveActivitySendParser.parseUpdateOrEnd(bare, activityID: "x").get().headings == nil)
    }

    @Test(arguments: [
        ({ @Sendable (b: inout JSONObject) in b["event"] = "start" }, #"event must be "update" or "end" on this route"#),
        ({ @Sendable (b: inout JSONObject) in b["event_updates"] = [:] }, "event_updates is required and must be a non-empty JSON object"),
        ({ @Sendable (b: inout JSONObject) in b["dismissal_date"] = 1_756_601_000 }, "dismissal_date is supported only on an end"),
        ({ @Sendable (b: inout JSONObject) in b["headings"] = ["de": "Hallo"] }, #"headings must include an "en" entry"#),
        ({ @Sendable (b: inout JSONObject) in b["contents"] = ["en": ""] }, #"contents must include an "en" entry"#),
        ({ @Sendable (b: inout JSONObject) in b["idempotency_key"] = "0f2a5c31-9d64-4f0e-b8b1-2f7d5c9a41e0" }, "unknown field 'idempotency_key'"),
        ({ @Sendable (b: inout JSONObject) in b["include_aliases"] = ["external_id": ["u"]] }, "unknown field 'include_aliases'"),
        ({ @Sendable (b: inout JSONObject) in b["custom_data"] = ["a": 1] }, "unknown field 'custom_data'"),
        ({ @Sendable (b: inout JSONObject) in b["stale_date"] = 2e12 }, "stale_date must be a unix timestamp in seconds, not milliseconds"),
    ] as [(@Sendable (inout JSONObject) -> Void, String)])
    func updateRejections(_ change: @Sendable (inout JSONObject) -> Void, _ message: String) {
        #expect(Self.updateErrors(change) == [message])
    }
}

@Suite struct LiquidInSendsTests {
    @Test func aTemplateThatDoesNotParseIsNamedByField() {
        var body = LiveActivitySendParserTests.start
        body["headings"] = ["en": "Hi {{ first_name", "fr": "{% if x %}Salut"]
        guard case .failure(let error) = LiveActivitySendParser.parseStart(body) else {
            Issue.record("accepted a broken template")
            return
        }
        #expect(error.messages == ["headings.en: unterminated output '{{'", "headings.fr: unclosed tag 'if'"])
    }

    @Test func rendersTheRecipientsLanguageElseEnglish() throws {
        let map = ["en": "Hello {{ first_name | default: \"there\" }}", "pt": "Olá {{ first_name }}"]
        let context = LocalizedText.context(tags: ["first_name": "Ana"], subscription: ["language": "pt"], user: [:])
        #expect(try LocalizedText.render(map, language: "pt", context: context, limit: 512) == "Olá Ana")
        #expect(try LocalizedText.render(map, language: "de", context: [:], limit: 512) == "Hello there")
        #expect(try LocalizedText.render(map, language: nil, context: context, limit: 512) == "Hello Ana")
        #expect(try LocalizedText.render(nil, language: "en", context: context, limit: 512) == nil)
    }

    @Test func cutsAtTheLimitInCharacters() throws {
        let long = ["en": String(repeating: "é", count: 3000)]
        #expect(try LocalizedText.render(long, language: nil, context: [:], limit: LocalizedText.bodyLimit)?.count == 2048)
        #expect(try LocalizedText.render(long, language: nil, context: [:], limit: LocalizedText.titleLimit)?.count == 512)
    }

    @Test func subscriptionAndUserCannotBeHiddenByTags() throws {
        let context = LocalizedText.context(tags: ["user": "tag value", "level": "3"],
                                            subscription: ["id": "sub_1"], user: ["external_id": "u-1"])
        #expect(context["user"] == ["external_id": "u-1"])
        #expect(context["level"] == "3")
        let rendered = try LocalizedText.render(["en": "{{ user.external_id }} {{ subscription.id }} {{ level }}"], language: nil,
                                            context: context, limit: 100)
        #expect(rendered == "u-1 sub_1 3")
    }
}
