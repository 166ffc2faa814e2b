import Testing
import OpenPushCore

/// `POST /notifications` bodies' Android fields: read and kept with the send (not ignored any
/// more), checked, stored and read back; those OpenPush does not map stay ignored and named.
@Suite struct NotificationSendAndroidTests {
    static func parse(_ body: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var full: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]]
        for (name, value) in body { full[name] = value }
        return NotificationSendParser.parse(full)
    }

    static func problems(_ body: JSONObject) -> [String] {
        guard case .failure(let error) = parse(body) else { return [] }
        return error.messages
    }

    @Test func androidFieldsAreKeptWithTheSendAndNoLongerIgnored() throws {
        let body: JSONObject = ["android_channel_id": "news", "small_icon": "ic_n", "large_icon": "face", "big_picture": "https://x.io/p.png",
                                "android_accent_color": "FF112233", "android_sound": "ding", "android_group": "g1",
                                "android_led_color": "FF0000FF", "android_visibility": 1, "collapse_id": "c", "ttl": 60]
        let send = try Self.parse(body).get()
        #expect(send.android == AndroidNotificationFields(channelID: "news", smallIcon: "ic_n", largeIcon: "face",
                                                          bigPicture: "https://x.io/p.png", accentColor: "#112233",
                                                          sound: "ding", group: "g1"))
        #expect(send.androidFields.collapseID == "c")
        #expect(send.androidFields.ttl == 60)
        // Only what FCM has no place for is still ignored, and named.
        #expect(OneSignalNotificationFields.ignoredHeader(for: body) == "android_led_color, android_visibility")
    }

    @Test func theExistingChannelWinsOverTheChannelID() throws {
        let send = try Self.parse(["android_channel_id": "a", "existing_android_channel_id": "b"]).get()
        #expect(send.android.channelID == "b")
    }

    @Test func androidFieldsAreCheckedAndTheirProblemsNamedOnce() {
        #expect(Self.problems(["android_accent_color": "red"]) == [AndroidNotificationFields.Messages.accentColor])
        #expect(Self.problems(["big_picture": "pitch.png"]) == [AndroidNotificationFields.Messages.bigPicture])
        #expect(Self.problems(["data": ["google.x": "1"]]) == [AndroidNotificationFields.Messages.reservedDataKey("google.x")])
        // A field both platforms share is checked once, not once per platform.
        #expect(Self.problems(["ttl": -1]).count == 1)
        #expect(Self.problems(["data": 3]).count == 1)
    }

    @Test func aSendThatExcludesAndroidIsNotRefusedForWhatOnlyFCMRefuses() throws {
        let send = try Self.parse(["data": ["from": "alice"], "isAndroid": false]).get()
        #expect(send.data == ["from": "alice"])
    }

    @Test func contentAvailableWithoutContentsNeedsNoContents() throws {
        let send = try NotificationSendParser.parse(["included_segments": ["All"], "content_available": true,
                                                     "android_channel_id": "sync"]).get()
        #expect(send.kind == .background)
        #expect(send.android.channelID == "sync")
    }

    @Test func theAndroidFieldsSurviveTheStoredForm() throws {
        let send = try Self.parse(["existing_android_channel_id": "news", "small_icon": "ic", "large_icon": "l",
                                   "big_picture": "https://x.io/p.png", "android_accent_color": "FFABCDEF",
                                   "android_sound": "s", "android_group": "g"]).get()
        #expect(try StoredSendTests.roundTrip(send) == send)
        let plain = try Self.parse([:]).get()
        #expect(StoredSend.encode(plain).objectValue?["android"] == nil)
        #expect(try StoredSendTests.roundTrip(plain) == plain)
    }

    @Test func templatesStillAcceptAndIgnoreAndroidFields() throws {
        let fields = try TemplateFields.parseCreate(["name": "t", "contents": ["en": "x"], "small_icon": "ic"]).get()
        #expect(fields.ignored == ["small_icon"])
    }
}
