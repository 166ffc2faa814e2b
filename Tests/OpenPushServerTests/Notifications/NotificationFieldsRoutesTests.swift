import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// `POST /notifications` with bodies written for OneSignal: other-channel fields accepted and
/// named in `OpenPush-Ignored-Fields`, legacy targeting spellings, `isIos`, `target_channel`.
@Suite struct NotificationFieldsRoutesTests {
    typealias Routes = NotificationRoutesTests

    @Test func anAndroidHeavyBodyIsAcceptedAndTheIgnoredFieldsAreNamed() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let body: JSONObject = [
            "included_segments": ["Subscribed Users"], "contents": ["en": "Hello"], "target_channel": "push",
            "small_icon": "ic_stat", "android_channel_id": "orders", "large_icon": "ic_big", "isAndroid": true,
            "android_accent_color": "FF0000FF", "android_led_color": "FF00FF00", "huawei_channel_id": "h", "isIos": true,
            "ios_sound": "ding.caf",
        ]
        let first = await Routes.post(harness, body, key: "fields-1")
        #expect(first.status == 200)
        // The Android fields FCM maps are honoured; only those it has no place for are ignored.
        let ignored = "android_led_color, huawei_channel_id"
        #expect(first.headers["OpenPush-Ignored-Fields"] == ignored)
        let replay = await Routes.post(harness, body, key: "fields-1")
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        #expect(replay.headers["OpenPush-Ignored-Fields"] == ignored)
        try await harness.drain()
        let push = try #require(harness.simulator.accepted().first)
        #expect(push.payloadJSON == ["aps": ["alert": ["body": "Hello"], "sound": "ding.caf"]])

        let plain = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]])
        #expect(plain.status == 200)
        #expect(plain.headers["OpenPush-Ignored-Fields"] == nil)
    }

    @Test func aTypoOrAnotherChannelStaysA400() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let typo = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"],
                                               "small_icn": "ic"])
        #expect(typo.status == 400)
        #expect(typo.json == ["errors": ["unknown field 'small_icn'"]])
        let email = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"],
                                                "target_channel": "email"])
        #expect(email.status == 400)
        #expect(email.json == ["errors": [.string(NotificationSendParser.Messages.targetChannel)]])
    }

    @Test func legacyTargetingSpellingsReachTheRightDevices() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        let appID = harness.created.app.id
        let player = try await harness.app.insertSubscription(appID: appID, token: Routes.token(0))
        try await harness.app.insertSubscription(appID: appID, token: Routes.token(1), externalID: "user-1")
        try await harness.app.insertSubscription(appID: appID, token: Routes.token(2), externalID: "user-2")
        #expect(await Routes.post(harness, ["include_player_ids": [.string(player)], "contents": ["en": "a"]]).status == 200)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Routes.token(0)])
        #expect(await Routes.post(harness, ["include_external_user_ids": ["user-2"], "contents": ["en": "b"]]).status == 200)
        try await harness.drain()
        #expect(harness.simulator.accepted().map(\.deviceToken) == [Routes.token(0), Routes.token(2)])
        let both = await Routes.post(harness, ["include_player_ids": [.string(player)], "include_subscription_ids": [.string(player)],
                                               "contents": ["en": "c"]])
        #expect(both.json == ["errors": [.string(SendMessages.exactlyOneTargetingMethod)]])
    }

    /// With Apple's devices left out, an audience of iPhones alone holds nobody.
    @Test func isIosFalseIsTheNoRecipientsAnswer() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.shutdown() } }
        try await harness.app.insertSubscription(appID: harness.created.app.id, token: Routes.token(0))
        let response = await Routes.post(harness, ["included_segments": ["Subscribed Users"], "contents": ["en": "x"],
                                                   "isIos": false, "isAndroid": true])
        #expect(response.status == 200)
        #expect(response.json == ["id": "", "errors": ["All included players are not subscribed"]])
        #expect(response.headers["OpenPush-Ignored-Fields"] == nil)
        try await harness.drain()
        #expect(harness.simulator.accepted().isEmpty)
        #expect(try await Routes.count(harness, "SELECT count(*)::int AS n FROM messages") == 0)
    }
}
