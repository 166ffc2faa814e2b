import Testing
import OpenPushCore

/// OneSignal's Apple fields on `POST /notifications`: `url`/`app_url`, `ios_attachments`,
/// `buttons`, `apns_alert`, the thread summary, `apns_push_type_override` and the body's
/// idempotency key — each checked, and delivered as OneSignal's iOS SDK reads them.
@Suite struct NotificationAppleFieldsTests {
    typealias Messages = NotificationSendParser.AppleMessages
    static let messageID = "msg_01jb2m9x4e7q"

    static func parse(_ fields: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var body: JSONObject = ["app_id": "app_1", "include_subscription_ids": ["sub_1"], "contents": ["en": "Hello"]]
        for (key, value) in fields { body[key] = value }
        return NotificationSendParser.parse(body)
    }

    static func problems(_ fields: JSONObject) -> [String] {
        guard case .failure(let error) = parse(fields) else { return [] }
        return error.messages
    }

    static func build(_ fields: JSONObject) throws -> APNSRequest {
        let send = try parse(fields).get()
        return try NotificationPayload.build(NotificationPushInput(
            send: send, title: send.headings?["en"], subtitle: send.subtitle?["en"], body: send.contents?["en"],
            bundleID: "com.example.app", apnsID: "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81", messageID: messageID,
            expiration: 1_800_000_000)).get()
    }

    // MARK: conformance: what the device receives

    @Test func everyOneSignalAppleFieldTogether() throws {
        let request = try Self.build([
            "headings": ["en": "Order shipped"],
            "url": "https://shop.example/orders/1", "app_url": "shop://orders/1",
            "ios_attachments": ["photo": "https://cdn.example/box.jpg", "icon": "badge.png"],
            "buttons": [["id": "track", "text": "Track", "icon": "ic_track"], ["id": "later", "text": "Later"]],
            "apns_alert": ["loc-key": "SHIPPED_BODY", "loc-args": ["1"], "launch-image": "Splash"],
            "thread_id": "orders", "summary_arg": "Shop", "summary_arg_count": 2,
            "data": ["order_id": "1"],
        ])
        let expected = try JSONValue.parse("""
            {
              "aps": {
                "alert": {
                  "loc-key": "SHIPPED_BODY", "loc-args": ["1"], "launch-image": "Splash",
                  "title": "Order shipped", "body": "Hello", "summary-arg": "Shop", "summary-arg-count": 2
                },
                "thread-id": "orders",
                "mutable-content": 1
              },
              "order_id": "1",
              "os_data": {
                "i": "msg_01jb2m9x4e7q",
                "u": "shop://orders/1",
                "att": { "photo": "https://cdn.example/box.jpg", "icon": "badge.png" },
                "buttons": [ { "i": "track", "n": "Track" }, { "i": "later", "n": "Later" } ]
              }
            }
            """)
        #expect(request.payload == expected)
        #expect(request.headers.pushType == .alert)
        // No category: OneSignal's extension registers `__onesignal__dynamic__<i>` only when
        // the push names none.
        #expect(request.payload.objectValue?["aps"]?.objectValue?["category"] == nil)
    }

    @Test func urlAloneOpensOnTapWithoutTheServiceExtension() throws {
        let request = try Self.build(["url": "https://example.com/a?b=c"])
        #expect(request.payload == ["aps": ["alert": ["body": "Hello"]],
                                    "os_data": ["i": .string(Self.messageID), "u": "https://example.com/a?b=c"]])
    }

    @Test func appURLWinsOverURLForApps() throws {
        #expect(try Self.parse(["url": "https://web.example", "app_url": "app://x"]).get().launchURL == "app://x")
        #expect(try Self.parse(["url": "https://web.example"]).get().launchURL == "https://web.example")
        #expect(try Self.parse(["app_url": "app://x"]).get().launchURL == "app://x")
    }

    @Test func attachmentsAloneImplyMutableContent() throws {
        let request = try Self.build(["ios_attachments": ["id1": "https://domain.com/image.jpg"]])
        #expect(request.payload == ["aps": ["alert": ["body": "Hello"], "mutable-content": 1],
                                    "os_data": ["i": .string(Self.messageID), "att": ["id1": "https://domain.com/image.jpg"]]])
    }

    @Test func buttonsWithACategoryKeepTheCategory() throws {
        let request = try Self.build(["buttons": [["id": "a", "text": "A"]], "ios_category": "ORDER"])
        let aps = request.payload.objectValue?["aps"]?.objectValue
        #expect(aps?["category"] == "ORDER")
        #expect(aps?["mutable-content"] == 1)
    }

    @Test func aLocKeyIsVisibleContentWithoutContents() throws {
        let send = try NotificationSendParser.parse([
            "include_subscription_ids": ["sub_1"], "apns_alert": ["loc-key": "HELLO", "loc-args": ["Ann"]],
        ]).get()
        #expect(send.kind == .alert)
        let request = try NotificationPayload.build(NotificationPushInput(
            send: send, bundleID: "b", apnsID: "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81", messageID: "m", expiration: 0)).get()
        #expect(request.payload == ["aps": ["alert": ["loc-key": "HELLO", "loc-args": ["Ann"]]]])
        #expect(NotificationSendParser.parse(["include_subscription_ids": ["sub_1"], "apns_alert": ["launch-image": "a"]])
            .failure?.messages == [NotificationSendParser.Messages.nothingToShow])
    }

    @Test func summaryFieldsWinOverApnsAlerts() throws {
        let request = try Self.build(["apns_alert": ["summary-arg": "old", "summary-arg-count": 9], "summary_arg": "new"])
        let alert = request.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue
        #expect(alert?["summary-arg"] == "new")
        #expect(alert?["summary-arg-count"] == 9)
    }

    @Test func aPlainNotificationCarriesNoOSData() throws {
        #expect(try Self.build([:]).payload == ["aps": ["alert": ["body": "Hello"]]])
    }

    @Test func matchingPushTypeOverridesChangeNothing() throws {
        #expect(try Self.build(["apns_push_type_override": "alert"]).headers.pushType == .alert)
        let silent = try NotificationSendParser.parse([
            "include_subscription_ids": ["sub_1"], "content_available": true, "apns_push_type_override": "background",
        ]).get()
        #expect(silent.kind == .background)
    }

    // MARK: validation

    @Test func urlsNeedASchemeAndNoSpaces() {
        #expect(Self.problems(["url": "example.com/x"]) == ["url " + Messages.url])
        #expect(Self.problems(["app_url": "https://a b"]) == ["app_url " + Messages.url])
        #expect(Self.problems(["url": "1http://x"]) == ["url " + Messages.url])
        #expect(Self.problems(["url": "https:"]) == ["url " + Messages.url])
        #expect(Self.problems(["url": 5]) == ["url must be a string, got number"])
        #expect(Self.problems(["url": .string("https://x/" + String(repeating: "a", count: 2048))]) == ["url " + Messages.url])
        #expect(Self.problems(["url": "my-app.v2+x://deep/link"]).isEmpty)
    }

    @Test func attachmentsAreAnObjectOfNonBlankLocations() {
        #expect(Self.problems(["ios_attachments": ["https://x/a.jpg"]]) == [Messages.attachments])
        #expect(Self.problems(["ios_attachments": [:]]) == [Messages.attachments])
        #expect(Self.problems(["ios_attachments": ["a": 1]]) == ["ios_attachments.a must be a URL or a bundled file name, without spaces"])
        #expect(Self.problems(["ios_attachments": ["a": "my file.png"]])
                == ["ios_attachments.a must be a URL or a bundled file name, without spaces"])
        #expect(Self.problems(["ios_attachments": [" ": "a.png"]]) == ["ios_attachments: a media id must not be blank"])
    }

    @Test func buttonsNeedAnIDAndATextEachAndAtMostThree() {
        #expect(Self.problems(["buttons": ["a"]]) == ["buttons[0] must be an object, got string"])
        #expect(Self.problems(["buttons": [:]]) == [Messages.buttonsArray])
        #expect(Self.problems(["buttons": []]) == [Messages.buttonsArray])
        #expect(Self.problems(["buttons": [["text": "A"], ["id": "b", "text": 1]]])
                == ["buttons[0].id is required", "buttons[1].text must be a string, got number"])
        #expect(Self.problems(["buttons": [["id": "a", "text": "A", "colour": "red"]]]) == ["buttons[0].unknown field 'colour'"])
        #expect(Self.problems(["buttons": [["id": "a", "text": "A"], ["id": "a", "text": "B"]]])
                == ["buttons[1].id 'a' is used by another button"])
        let four: JSONValue = .array((1...4).map { ["id": .string("b\($0)"), "text": "x"] })
        #expect(Self.problems(["buttons": four]) == [Messages.tooManyButtons])
    }

    @Test func apnsAlertTakesApplesKeysWithTheirTypes() {
        #expect(Self.problems(["apns_alert": "HELLO"]) == [Messages.apnsAlert])
        #expect(Self.problems(["apns_alert": ["loc-key": 1, "loc-args": "a", "summary-arg-count": 0]]) == [
            "apns_alert.loc-key must be a string, got number", "apns_alert.loc-args must be an array of strings",
            "apns_alert.summary-arg-count must be an integer of 1 or more",
        ])
        #expect(Self.problems(["apns_alert": ["body": "x", "title": "y"]])
                == ["apns_alert.body: give this text in contents", "apns_alert.title: give this text in headings"])
        #expect(Self.problems(["apns_alert": ["sound": "a"]]).first?.hasPrefix("apns_alert.sound is not an alert key") == true)
        #expect(Self.problems(["apns_alert": ["title-loc-key": "T", "title-loc-args": [], "subtitle-loc-key": "S",
                                              "subtitle-loc-args": ["x"], "action-loc-key": "A", "launch-image": "L",
                                              "summary-arg": "s", "summary-arg-count": 3]]).isEmpty)
    }

    @Test func summaryArgCountIsAPositiveInteger() {
        #expect(Self.problems(["summary_arg_count": 0]) == ["summary_arg_count must be an integer from 1 to 1000000"])
        #expect(Self.problems(["summary_arg": 3]) == ["summary_arg must be a string, got number"])
    }

    @Test func pushTypeOverridesApplesWouldRefuseAreRefused() {
        #expect(Self.problems(["apns_push_type_override": "mdm"]) == [NotificationSendParser.PushTypeMessages.unknown])
        #expect(Self.problems(["apns_push_type_override": "liveactivity"]) == [NotificationSendParser.PushTypeMessages.unknown])
        #expect(Self.problems(["apns_push_type_override": "background"]) == [Messages.pushTypeMismatch("background", .alert)])
        #expect(NotificationSendParser.parse(["include_subscription_ids": ["s"], "content_available": true,
                                              "apns_push_type_override": "alert"]).failure?.messages
                == [Messages.pushTypeMismatch("alert", .background)])
    }

    @Test func aBackgroundNotificationRefusesWhatOnlyAVisibleOneShows() {
        let problems = NotificationSendParser.parse([
            "include_subscription_ids": ["s"], "content_available": true, "url": "https://x", "buttons": [["id": "a", "text": "A"]],
        ]).failure?.messages
        #expect(problems == [Messages.backgroundShowsNothing + "url, buttons"])
    }

    @Test func aWidgetReloadRefusesThemToo() {
        let problems = NotificationSendParser.parse([
            "include_subscription_ids": ["s"], "push_type": "widgets", "ios_attachments": ["a": "b.png"],
        ]).failure?.messages
        #expect(problems == [NotificationSendParser.Messages.widgetsOnlyReload + "ios_attachments"])
    }

    @Test func dataCannotHideOSData() {
        #expect(Self.problems(["url": "https://x", "data": ["os_data": 1]]) == [Messages.dataHoldsOSData])
        #expect(Self.problems(["data": ["os_data": 1]]).isEmpty)
    }

    @Test func theBodysIdempotencyKeyIsAUUIDUnderEitherName() throws {
        let key = "0B7D2C1E-8F3A-4E65-A9D0-3C4B5E6F7A81"
        #expect(try Self.parse(["idempotency_key": .string(key)]).get().idempotencyKey == key.lowercased())
        #expect(try Self.parse(["external_id": .string(key)]).get().idempotencyKey == key.lowercased())
        #expect(try Self.parse(["external_id": .string(key), "idempotency_key": .string(key.lowercased())]).get().idempotencyKey
                == key.lowercased())
        #expect(Self.problems(["idempotency_key": "abc"]) == [Messages.idempotencyKeyUUID])
        #expect(Self.problems(["external_id": 7]) == [Messages.externalIDUUID])
        #expect(Self.problems(["external_id": .string(key), "idempotency_key": "1b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81"])
                == [Messages.twoIdempotencyKeys])
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension NotificationAppleFieldsTests {
    @Test func aWidgetReloadNamesAnOverrideOnce() {
        let problems = NotificationSendParser.parse([
            "include_subscription_ids": ["s"], "push_type": "widgets", "apns_push_type_override": "alert",
        ]).failure?.messages
        #expect(problems == [NotificationSendParser.Messages.widgetsOnlyReload + "apns_push_type_override"])
    }
}
