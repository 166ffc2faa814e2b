import Testing
import OpenPushCore

@Suite struct AndroidNotificationFieldsTests {
    private func parse(_ body: JSONObject) throws -> AndroidNotificationFields {
        try AndroidNotificationFields.parse(body)
    }

    private func problems(_ body: JSONObject) -> [String] {
        do {
            _ = try AndroidNotificationFields.parse(body)
            return []
        } catch {
            return error.messages
        }
    }

    @Test func emptyBodyHasNoFields() throws {
        #expect(try parse([:]) == AndroidNotificationFields())
    }

    @Test func readsEveryField() throws {
        let fields = try parse([
            "android_channel_id": "promo", "small_icon": "ic_stat", "large_icon": "https://example.com/l.png",
            "big_picture": "https://example.com/b.png", "android_accent_color": "FF0000FF", "android_sound": "ding",
            "android_group": "orders", "collapse_id": "order-1", "priority": 5, "ttl": 3600,
            "url": "https://example.com/o/1", "content_available": true, "data": ["k": "v", "n": 1],
        ])
        #expect(fields == AndroidNotificationFields(
            channelID: "promo", smallIcon: "ic_stat", largeIcon: "https://example.com/l.png",
            bigPicture: "https://example.com/b.png", accentColor: "#0000FF", sound: "ding", group: "orders",
            collapseID: "order-1", priority: 5, ttl: 3600, url: "https://example.com/o/1", contentAvailable: true,
            data: ["k": "v", "n": 1]))
    }

    @Test func theAppsOwnChannelWinsOverOneSignalsChannelID() throws {
        #expect(try parse(["existing_android_channel_id": "mine", "android_channel_id": "theirs"]).channelID == "mine")
        #expect(try parse(["android_channel_id": "theirs"]).channelID == "theirs")
        #expect(try parse(["existing_android_channel_id": "  ", "android_channel_id": "theirs"]).channelID == "theirs")
    }

    @Test func appURLWinsOverURL() throws {
        #expect(try parse(["url": "https://a.example", "app_url": "myapp://b"]).url == "myapp://b")
    }

    @Test(arguments: [("FF0000FF", "#0000FF"), ("80ff8800", "#ff8800"), ("00ABCDEF", "#ABCDEF")])
    func accentColorDropsTheAlpha(_ argb: String, _ rgb: String) throws {
        #expect(try parse(["android_accent_color": .string(argb)]).accentColor == rgb)
    }

    @Test(arguments: ["0000FF", "#FF0000FF", "FF0000FG", "FF0000FF0", "red"])
    func badAccentColorIsRefused(_ color: String) {
        #expect(problems(["android_accent_color": .string(color)]) == [AndroidNotificationFields.Messages.accentColor])
    }

    @Test(arguments: [
        (#"{"android_accent_color": 255}"#, "android_accent_color must be a string, got number"),
        (#"{"small_icon": true}"#, "small_icon must be a string, got boolean"),
        (#"{"large_icon": 1}"#, "large_icon must be a string, got number"),
        (#"{"android_sound": ["a"]}"#, "android_sound must be a string, got array"),
        (#"{"android_group": 2}"#, "android_group must be a string, got number"),
        (#"{"android_channel_id": 2}"#, "android_channel_id must be a string, got number"),
        (#"{"existing_android_channel_id": false}"#, "existing_android_channel_id must be a string, got boolean"),
        (#"{"big_picture": "picture.png"}"#, AndroidNotificationFields.Messages.bigPicture),
        (#"{"big_picture": "https://example.com/a b.png"}"#, AndroidNotificationFields.Messages.bigPicture),
        (#"{"priority": 7}"#, "priority must be 5 or 10"),
        (#"{"ttl": -1}"#, "ttl must be an integer from 0 to 2419200"),
        (#"{"ttl": 2419201}"#, "ttl must be an integer from 0 to 2419200"),
        (#"{"url": "not a url"}"#, "url must be a URL with a scheme (https://…, or your app's own scheme), without spaces, at most 2048 bytes"),
        (#"{"content_available": "yes"}"#, "content_available must be a boolean, got string"),
        (#"{"collapse_id": "a\nb"}"#, "collapse_id must be printable ASCII (space to ~): it is sent as an HTTP/2 header"),
        (#"{"data": "x"}"#, "data must be an object, got string"),
        (#"{"data": {"from": "x"}}"#, "data cannot contain the key 'from': FCM reserves it"),
        (#"{"data": {"message_type": "x"}}"#, "data cannot contain the key 'message_type': FCM reserves it"),
        (#"{"data": {"notification": "x"}}"#, "data cannot contain the key 'notification': FCM reserves it"),
        (#"{"data": {"google.c.a": "x"}}"#, "data cannot contain the key 'google.c.a': FCM reserves it"),
        (#"{"data": {"gcm.n.e": "x"}}"#, "data cannot contain the key 'gcm.n.e': FCM reserves it"),
        (#"{"data": {"openpush_notification_id": "x"}}"#, "data cannot contain the key 'openpush_notification_id': OpenPush writes it"),
        (#"{"data": {"openpush_subscription_id": "x"}}"#, "data cannot contain the key 'openpush_subscription_id': OpenPush writes it"),
        (#"{"large_icon": "ic", "data": {"large_icon": "x"}}"#,
         "data cannot contain the key 'large_icon' with large_icon: OpenPush writes it from there"),
        (#"{"app_url": "myapp://a", "data": {"url": "x"}}"#,
         "data cannot contain the key 'url' with url or app_url: OpenPush writes it from there"),
    ] as [(String, String)])
    func badValuesAreRefusedNamingTheField(_ body: String, _ message: String) throws {
        #expect(problems(try #require(try JSONValue.parse(body).objectValue)) == [message])
    }

    @Test func dataKeysOpenPushFillsAreTheAppsOwnWithoutTheField() throws {
        #expect(try parse(["data": ["url": "x", "large_icon": "y"]]).data == ["url": "x", "large_icon": "y"])
    }

    @Test func everyProblemIsReportedAtOnce() {
        #expect(problems(["android_accent_color": "blue", "priority": 1, "big_picture": "x"]) == [
            AndroidNotificationFields.Messages.bigPicture, AndroidNotificationFields.Messages.accentColor,
            "priority must be 5 or 10",
        ])
    }

    @Test func otherKeysOfTheBodyAreNotThisParsersBusiness() throws {
        #expect(try parse(["contents": ["en": "hi"], "android_led_color": "FF00FF00", "whatever": 1]) == AndroidNotificationFields())
    }
}
