import Testing
import OpenPushCore

/// `POST /notifications` bodies' web fields: read and kept with the send (no longer ignored),
/// checked (`web_push_topic`, URLs), stored and read back; the browser switches leave out the
/// browsers they name, in sends and in estimates.
@Suite struct NotificationSendWebTests {
    static func parse(_ body: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var full: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]]
        for (name, value) in body { full[name] = value }
        return NotificationSendParser.parse(full)
    }

    static func problems(_ body: JSONObject) -> [String] {
        guard case .failure(let error) = parse(body) else { return [] }
        return error.messages
    }

    @Test func webFieldsAreKeptWithTheSendAndNoLongerIgnored() throws {
        let body: JSONObject = ["chrome_web_icon": "https://x.io/i.png", "firefox_icon": "https://x.io/f.png",
                                "chrome_web_image": "https://x.io/big.png", "chrome_web_badge": "https://x.io/b.png",
                                "web_url": "https://x.io/page", "url": "https://x.io/app", "web_push_topic": "score-42_A",
                                "isAnyWeb": true, "isChromeWeb": true, "isFirefox": true, "isSafari": true, "isEdge": true,
                                "web_buttons": [], "chrome_big_picture": "https://x.io/old.png"]
        let send = try Self.parse(body).get()
        #expect(send.web == WebNotificationFields(icon: "https://x.io/i.png", image: "https://x.io/big.png",
                                                  badge: "https://x.io/b.png", url: "https://x.io/page", topic: "score-42_A"))
        #expect(send.excludedServices.isEmpty)
        // Only the web fields Web Push has no place for are still ignored, and named.
        #expect(OneSignalNotificationFields.ignoredHeader(for: body) == "chrome_big_picture, web_buttons")
    }

    @Test func theFirefoxIconAndTheURLAreTheFallbacks() throws {
        let send = try Self.parse(["firefox_icon": "https://x.io/f.png", "url": "https://x.io/u", "app_url": "myapp://open"]).get()
        #expect(send.web.icon == "https://x.io/f.png")
        // `app_url` is for apps: a browser opens `url`.
        #expect(send.web.url == "https://x.io/u")
        #expect(send.launchURL == "myapp://open")
    }

    @Test func aTopicThatIsNotOneIsRefusedNamingTheField() {
        #expect(Self.problems(["web_push_topic": "has space"]) == [WebNotificationFields.Messages.topic])
        #expect(Self.problems(["web_push_topic": .string(String(repeating: "a", count: 33))]) == [WebNotificationFields.Messages.topic])
        #expect(Self.problems(["web_push_topic": "a+b"]) == [WebNotificationFields.Messages.topic])
        #expect(Self.problems(["web_push_topic": .string(String(repeating: "a", count: 32))]).isEmpty)
        #expect(Self.problems(["chrome_web_icon": "icon.png"]) == ["chrome_web_icon " + NotificationSendParser.AppleMessages.url])
    }

    @Test func aCollapseIDNeedNotBeATopic() throws {
        // A mixed audience is never refused for it: the sender digests it into one.
        let send = try Self.parse(["collapse_id": "score update #42 (home)"]).get()
        #expect(send.collapseID == "score update #42 (home)")
        #expect(!WebPushTopic.isValid("score update #42 (home)"))
    }

    @Test func theBrowserSwitchesLeaveOutTheirBrowsers() throws {
        #expect(try Self.parse(["isChromeWeb": false, "isSafari": false]).get().excludedBrowsers == [.chrome, .safari])
        #expect(try Self.parse(["isChromeWeb": false]).get().excludedServices.isEmpty)
        let noWeb = try Self.parse(["isAnyWeb": false]).get()
        #expect(noWeb.excludedBrowsers == Set(WebPushBrowser.allCases))
        #expect(noWeb.excludedServices == [.webPush])
        let everyFlag = try Self.parse(["isChromeWeb": false, "isFirefox": false, "isSafari": false, "isEdge": false]).get()
        #expect(everyFlag.excludedServices == [.webPush])
        let nothing = try Self.parse(["isAnyWeb": false, "isIos": false, "isAndroid": false]).get()
        #expect(nothing.excludesEveryService)
    }

    @Test func anEstimateReadsTheBrowserSwitches() throws {
        let estimate = try NotificationEstimateParser.parse(["included_segments": ["Subscribed Users"], "isEdge": false,
                                                             "isFirefox": false]).get()
        #expect(estimate.excludedBrowsers == [.edge, .firefox])
        let none = try NotificationEstimateParser.parse(["included_segments": ["Subscribed Users"], "isAnyWeb": false]).get()
        #expect(none.excludedServices == [.webPush])
    }

    @Test func theWebFieldsAreStoredAndReadBack() throws {
        let send = try Self.parse(["chrome_web_icon": "https://x.io/i.png", "web_url": "https://x.io/p", "web_push_topic": "t1",
                                   "isFirefox": false, "isEdge": false]).get()
        let decoded = try StoredSend.decodeNotification(StoredSend.encode(send))
        #expect(decoded.web == send.web)
        #expect(decoded == send)
        let plain = try Self.parse([:]).get()
        #expect(StoredSend.encode(plain).objectValue?["web"] == nil)
    }

    @Test func aTemplateIgnoresTheWebFields() throws {
        let fields = try TemplateFields.parseCreate(["name": "t", "contents": ["en": "x"], "chrome_web_icon": "https://x.io/i.png",
                                                     "isAnyWeb": false]).get()
        #expect(fields.ignored == ["chrome_web_icon", "isAnyWeb"])
    }
}
