import Testing
import OpenPushCore

@Suite struct FCMMessageTests {
    static let ids: JSONObject = ["openpush_notification_id": "n-1", "openpush_subscription_id": "s-1"]

    private func message(title: String? = "Hello", body: String? = "World", _ fields: AndroidNotificationFields = .init(),
                         content: FCMMessageContent = .full) -> FCMMessage {
        FCMMessage(token: "tok:APA91", title: title, body: body, fields: fields, notificationID: "n-1",
                   subscriptionID: "s-1", content: content)
    }

    /// The body as FCM reads it: the serialized bytes parsed back.
    private func sent(_ message: FCMMessage) throws -> JSONObject {
        let root = try #require(try JSONValue.parse(message.serializedBytes).objectValue)
        #expect(root.keys == ["message"])
        return try #require(root["message"]?.objectValue)
    }

    private func data(_ extra: JSONObject = [:]) -> JSONValue {
        var data = extra
        for (key, value) in Self.ids { data[key] = value }
        return .object(data)
    }

    @Test func aPlainNotification() throws {
        #expect(try sent(message()) == [
            "token": "tok:APA91",
            "notification": ["title": "Hello", "body": "World"],
            "data": data(),
            "android": ["priority": "HIGH"],
        ])
    }

    @Test func titleOrBodyAloneIsStillVisible() throws {
        #expect(try sent(message(title: nil))["notification"] == ["body": "World"])
        #expect(try sent(message(body: nil))["notification"] == ["title": "Hello"])
        #expect(try sent(message(title: " ", body: "World"))["notification"] == ["body": "World"])
    }

    /// Each field and where it lands in the FCM message, beside a visible notification.
    @Test(arguments: [
        (AndroidNotificationFields(bigPicture: "https://e.com/b.png"), "notification", ["image": "https://e.com/b.png"] as JSONObject),
        (AndroidNotificationFields(channelID: "promo"), "android.notification", ["channel_id": "promo"]),
        (AndroidNotificationFields(smallIcon: "ic_stat"), "android.notification", ["icon": "ic_stat"]),
        (AndroidNotificationFields(accentColor: "#0000FF"), "android.notification", ["color": "#0000FF"]),
        (AndroidNotificationFields(sound: "ding"), "android.notification", ["sound": "ding"]),
        (AndroidNotificationFields(group: "orders"), "android.notification", ["tag": "orders"]),
        (AndroidNotificationFields(largeIcon: "https://e.com/l.png"), "data", ["large_icon": "https://e.com/l.png"]),
        (AndroidNotificationFields(url: "myapp://order/1"), "data", ["url": "myapp://order/1"]),
        (AndroidNotificationFields(collapseID: "order-1"), "android", ["collapse_key": "order-1"]),
        (AndroidNotificationFields(priority: 10), "android", ["priority": "HIGH"]),
        (AndroidNotificationFields(priority: 5), "android", ["priority": "NORMAL"]),
        (AndroidNotificationFields(ttl: 3600), "android", ["ttl": "3600s"]),
        (AndroidNotificationFields(ttl: 0), "android", ["ttl": "0s"]),
    ] as [(AndroidNotificationFields, String, JSONObject)])
    func eachFieldMapsToItsPlace(_ fields: AndroidNotificationFields, _ path: String, _ expected: JSONObject) throws {
        let message = try sent(message(fields))
        var object: JSONObject? = message
        for step in path.split(separator: ".") { object = object?[String(step)]?.objectValue }
        let found = try #require(object)
        for (key, value) in expected { #expect(found[key] == value, "\(path).\(key)") }
    }

    @Test func everyFieldAtOnce() throws {
        let fields = AndroidNotificationFields(
            channelID: "promo", smallIcon: "ic_stat", largeIcon: "https://e.com/l.png", bigPicture: "https://e.com/b.png",
            accentColor: "#0000FF", sound: "ding", group: "orders", collapseID: "order-1", priority: 5, ttl: 60,
            url: "https://e.com/o", data: ["k": "v"])
        #expect(try sent(message(fields)) == [
            "token": "tok:APA91",
            "notification": ["title": "Hello", "body": "World", "image": "https://e.com/b.png"],
            "data": data(["k": "v", "large_icon": "https://e.com/l.png", "url": "https://e.com/o"]),
            "android": [
                "collapse_key": "order-1", "priority": "NORMAL", "ttl": "60s",
                "notification": ["channel_id": "promo", "icon": "ic_stat", "color": "#0000FF", "sound": "ding", "tag": "orders"],
            ],
        ])
    }

    @Test func dataValuesAreStringsAndNestedValuesTheirJSONText() throws {
        let fields = AndroidNotificationFields(data: [
            "s": "text", "i": 42, "d": 1.5, "b": true, "z": nil, "a": [1, "x"], "o": ["k": ["n": 1]],
        ])
        #expect(try sent(message(fields))["data"] == data([
            "s": "text", "i": "42", "d": "1.5", "b": "true", "z": "null", "a": #"[1,"x"]"#, "o": #"{"k":{"n":1}}"#,
        ]))
    }

    @Test func noTitleOrBodyIsDataOnlyAndNormal() throws {
        let fields = AndroidNotificationFields(
            channelID: "promo", smallIcon: "ic", bigPicture: "https://e.com/b.png", accentColor: "#000000",
            sound: "ding", group: "g", contentAvailable: true, data: ["k": "v"])
        let built = message(title: nil, body: nil, fields)
        #expect(built.isDataOnly)
        #expect(try sent(built) == ["token": "tok:APA91", "data": data(["k": "v"]), "android": ["priority": "NORMAL"]])
        #expect(try sent(message(title: "", body: " ", AndroidNotificationFields(priority: 10)))["android"] == ["priority": "HIGH"])
    }

    @Test func theIdsGoWithEveryPush() throws {
        for content in [FCMMessageContent.full, .hiddenDetails, .idsOnly] {
            for texts in [("t", "b"), (nil, nil)] as [(String?, String?)] {
                let data = try #require(try sent(message(title: texts.0, body: texts.1, content: content))["data"]?.objectValue)
                #expect(data["openpush_notification_id"] == "n-1")
                #expect(data["openpush_subscription_id"] == "s-1")
            }
        }
    }

    static let everything = AndroidNotificationFields(
        channelID: "promo", smallIcon: "ic_stat", largeIcon: "https://e.com/l.png", bigPicture: "https://e.com/b.png",
        accentColor: "#0000FF", sound: "ding", group: "orders", collapseID: "c", ttl: 60, url: "https://e.com/o",
        data: ["k": "v"])

    @Test func aHiddenDetailsPushCarriesNoContent() throws {
        let built = message(title: "Secret title", body: "New notification", Self.everything, content: .hiddenDetails)
        #expect(try sent(built) == [
            "token": "tok:APA91",
            "notification": ["body": "New notification"],
            "data": data(["k": "v", "url": "https://e.com/o"]),
            "android": [
                "collapse_key": "c", "priority": "HIGH", "ttl": "60s",
                "notification": ["channel_id": "promo", "icon": "ic_stat", "color": "#0000FF", "sound": "ding", "tag": "orders"],
            ],
        ])
        #expect(!built.serialized.contains("Secret"))
    }

    @Test func anIdsOnlyPushIsDataOnlyWithTheIds() throws {
        let built = message(title: "Secret", body: "New notification", Self.everything, content: .idsOnly)
        #expect(built.isDataOnly)
        #expect(try sent(built) == [
            "token": "tok:APA91", "data": data(["k": "v"]),
            "android": ["collapse_key": "c", "priority": "HIGH", "ttl": "60s"],
        ])
        var normal = Self.everything
        normal.priority = 5
        #expect(try sent(message(normal, content: .idsOnly))["android"]?.objectValue?["priority"] == "NORMAL")
    }

    @Test func contentFollowsThePrivacyShape() {
        #expect(FCMMessageContent(AlertPrivacy.Shape.full) == .full)
        #expect(FCMMessageContent(AlertPrivacy.Shape.blankFallback) == .full)
        #expect(FCMMessageContent(AlertPrivacy.Shape.hidden) == .hiddenDetails)
        #expect(FCMMessageContent(AlertPrivacy.Shape.idsOnly) == .idsOnly)
    }

    @Test func fieldsParsedFromABodyBuildTheMessage() throws {
        let fields = try AndroidNotificationFields.parse([
            "existing_android_channel_id": "orders", "android_accent_color": "FFFF8800", "priority": 10, "ttl": 3600,
            "data": ["order": ["id": 7]],
        ])
        #expect(try sent(message(fields)) == [
            "token": "tok:APA91",
            "notification": ["title": "Hello", "body": "World"],
            "data": data(["order": #"{"id":7}"#]),
            "android": ["priority": "HIGH", "ttl": "3600s", "notification": ["channel_id": "orders", "color": "#FF8800"]],
        ])
    }
}

extension FCMMessage {
    var serialized: String { String(decoding: serializedBytes, as: UTF8.self) }
}
