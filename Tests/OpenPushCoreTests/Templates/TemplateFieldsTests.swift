import Testing
import OpenPushCore

/// A template's fields are checked as the notification body's are, kept as sent, and applied to
/// a send at the JSON level with the request's own fields winning.
@Suite struct TemplateFieldsTests {
    static func problems(_ result: Result<TemplateFields, InvalidInput>) -> [String] {
        guard case .failure(let error) = result else { return [] }
        return error.messages
    }

    @Test func aCreateKeepsEveryFieldAsSent() throws {
        let body: JSONObject = [
            "app_id": "app_1", "name": "Shipped", "headings": ["en": "Order {{ message.custom_data.id }}"],
            "subtitle": ["en": "Today"], "contents": ["en": "Hi {{ first_name }}", "pt": "Olá"], "data": ["screen": "orders"],
            "ios_sound": "ship.caf", "ios_category": "ORDER", "ios_attachments": ["id1": "https://example.com/a.jpg"],
            "buttons": [["id": "track", "text": "Track", "icon": "map"]],
        ]
        let fields = try TemplateFields.parseCreate(body).get()
        #expect(fields.name == "Shipped")
        #expect(fields.content.keys == TemplateFields.contentFields)
        for field in TemplateFields.contentFields { #expect(fields.content[field] == body[field], "\(field)") }
        #expect(fields.removed.isEmpty && fields.ignored.isEmpty)
    }

    @Test func aCreateNeedsANameAndEnglishContents() {
        #expect(Self.problems(TemplateFields.parseCreate(["app_id": "a"])) == ["name is required", #"contents must include an "en" entry"#])
        #expect(Self.problems(TemplateFields.parseCreate(["name": " ", "contents": ["pt": "Olá"]]))
                == ["name is required", #"contents must include an "en" entry"#])
        #expect(Self.problems(TemplateFields.parseCreate(["name": .string(String(repeating: "n", count: 129)), "contents": ["en": "x"]]))
                == ["name must be 128 characters or fewer"])
    }

    @Test func liquidThatDoesNotParseIsRefusedNamingTheField() {
        let problems = Self.problems(TemplateFields.parseCreate([
            "name": "n", "headings": ["en": "{% if x %}"], "contents": ["en": "ok", "pt": "{{ x | nope }}"],
        ]))
        #expect(problems == ["headings.en: unclosed tag 'if'", "contents.pt: unknown filter 'nope'"])
    }

    @Test func everyFieldIsCheckedByTheNotificationRules() {
        let problems = Self.problems(TemplateFields.parseCreate([
            "name": 5, "contents": ["en": "x"], "subtitle": "text", "data": ["aps": ["alert": "x"]], "ios_sound": 1,
            "ios_category": true, "ios_attachments": ["id1": 3], "buttons": [["id": "a"], "b", ["id": 1, "text": "t"]],
            "isEmail": true, "colour": "red",
        ]))
        #expect(problems == [
            "name must be a string, got number",
            "subtitle must be an object of strings, got string",
            NotificationSendParser.Messages.dataHoldsAPS,
            "ios_sound must be a string, got number",
            "ios_category must be a string, got boolean",
            "ios_attachments.id1 must be a string, got number",
            "buttons[0].text is required",
            "buttons[1] must be an object, got string",
            "buttons[2].id must be a string, got number",
            TemplateFields.Messages.pushOnly("isEmail"),
            "unknown field 'colour'",
        ])
        #expect(Self.problems(TemplateFields.parseCreate(["name": "n", "contents": ["en": "x"], "buttons": ["a": "b"]]))
                == ["buttons must be an array of objects, got object"])
    }

    @Test func emailAndSMSFieldsAreAcceptedAndNamed() throws {
        let fields = try TemplateFields.parseCreate([
            "name": "n", "contents": ["en": "x"], "isEmail": false, "isSMS": false, "email_subject": "s",
            "dynamic_content": "{}", "small_icon": "ic",
        ]).get()
        #expect(fields.ignored == ["dynamic_content", "email_subject", "small_icon"])
        #expect(fields.content.keys == ["contents"])
    }

    @Test func anUpdateSetsWhatIsGivenAndNullRemovesOptionalFields() throws {
        let fields = try TemplateFields.parseUpdate(["headings": nil, "ios_sound": "b.caf", "buttons": nil]).get()
        #expect(fields.name == nil)
        #expect(fields.content == ["ios_sound": "b.caf"])
        #expect(fields.removed == ["headings", "buttons"])
        #expect(try TemplateFields.parseUpdate([:]).get() == TemplateFields(name: nil))
        #expect(Self.problems(TemplateFields.parseUpdate(["name": nil, "contents": nil]))
                == [TemplateFields.Messages.nameRemoved, TemplateFields.Messages.contentsRemoved])
        #expect(Self.problems(TemplateFields.parseUpdate(["name": "", "contents": ["de": "x"]]))
                == ["name is required", #"contents must include an "en" entry"#])
    }

    // MARK: applying a template

    @Test func theRequestsFieldsWinAndNullOrAbsentOnesAreFilled() {
        let body: JSONObject = ["app_id": "app_1", "template_id": "tpl_1", "headings": ["en": "Mine"], "data": nil,
                                "included_segments": ["All"]]
        let merged = TemplateMerge.merged(body, name: "Shipped", content: [
            "headings": ["en": "Theirs"], "contents": ["en": "Body"], "data": ["k": "v"], "ios_sound": "a.caf",
        ])
        #expect(merged == ["app_id": "app_1", "template_id": "tpl_1", "headings": ["en": "Mine"], "data": ["k": "v"],
                           "included_segments": ["All"], "name": "Shipped", "contents": ["en": "Body"], "ios_sound": "a.caf"])
        #expect(TemplateMerge.merged(["name": "Campaign"], name: "Shipped", content: [:]) == ["name": "Campaign"])
    }

    @Test func templateIDMustBeANonBlankString() throws {
        #expect(try TemplateMerge.templateID(in: ["template_id": "tpl_1"]).get() == "tpl_1")
        #expect(try TemplateMerge.templateID(in: ["template_id": nil]).get() == nil)
        #expect(try TemplateMerge.templateID(in: [:]).get() == nil)
        #expect(throws: InvalidInput("template_id must be a string, got number")) {
            try TemplateMerge.templateID(in: ["template_id": 3]).get()
        }
        #expect(throws: InvalidInput("template_id must not be blank")) {
            try TemplateMerge.templateID(in: ["template_id": " "]).get()
        }
    }

    // MARK: custom_data

    @Test func customDataIsAnObjectCarriedWithTheSend() throws {
        let base: JSONObject = ["contents": ["en": "x"], "included_segments": ["All"], "template_id": "tpl_1"]
        var body = base
        body["custom_data"] = ["order": ["id": 42]]
        #expect(try NotificationSendParser.parse(body).get().customData == ["order": ["id": 42]])
        #expect(try NotificationSendParser.parse(base).get().customData == nil)
        body["custom_data"] = "42"
        guard case .failure(let error) = NotificationSendParser.parse(body) else {
            Issue.record("a string custom_data was accepted")
            return
        }
        #expect(error.messages == ["custom_data must be an object, got string"])
    }

    @Test func liquidReadsCustomDataAsMessageCustomData() throws {
        let send = try NotificationSendParser.parse([
            "contents": ["en": "Order {{ message.custom_data.order.id }} for {{ message }}{{ first_name }}"],
            "included_segments": ["All"], "custom_data": ["order": ["id": 42]],
        ]).get()
        var context = DeliveryContext()
        context.add(DeliveryContext.App(id: "app_a", bundleID: "com.example.app"))
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: 1_800_000_000))
        // A tag named `message` cannot hide the message's own.
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", tags: ["first_name": "Ana", "message": "tag"],
                                                 token: "aa"))
        let delivery = ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: "app_a",
                                       subscriptionID: "sub_1", liveActivityID: nil, tokenKind: .device, token: "aa", badge: nil,
                                       attempts: 1, createdAt: 1_800_000_000)
        let plan = try DeliveryPlanner.plan(delivery, context: context, now: 1_800_000_000).get()
        let body = plan.request.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]
        #expect(body == #"Order 42 for {"custom_data":{"order":{"id":42}}}Ana"#)
        #expect(plan.request.payload.objectValue?["custom_data"] == nil)
    }
}
