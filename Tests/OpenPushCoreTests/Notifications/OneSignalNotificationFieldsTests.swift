import Testing
import OpenPushCore

/// OneSignal's create-notification fields: other channels accepted and named, Apple-meaningful
/// legacy spellings honoured, typos still refused.
@Suite struct OneSignalNotificationFieldsTests {
    static func parse(_ body: JSONObject) -> Result<NotificationSend, InvalidInput> {
        var full: JSONObject = ["contents": ["en": "x"]]
        for (name, value) in body { full[name] = value }
        return NotificationSendParser.parse(full)
    }

    static func problems(_ body: JSONObject) -> [String] {
        guard case .failure(let error) = parse(body) else { return [] }
        return error.messages
    }

    @Test func otherChannelFieldsAreAcceptedAndNamedSorted() throws {
        let body: JSONObject = ["included_segments": ["Subscribed Users"], "android_led_color": "FF0000FF", "isHuawei": true,
                                "android_visibility": 1, "email_subject": "s", "ios_sound": "a.caf"]
        let send = try Self.parse(body).get()
        #expect(send.sound == "a.caf")
        #expect(OneSignalNotificationFields.ignored(in: body) == ["android_led_color", "android_visibility", "email_subject", "isHuawei"])
        #expect(OneSignalNotificationFields.ignoredHeader(for: body)
                == "android_led_color, android_visibility, email_subject, isHuawei")
        #expect(OneSignalNotificationFields.ignoredHeader(for: ["contents": ["en": "x"], "ttl": 5]) == nil)
    }

    @Test func aTypoStaysA400NamingIt() {
        #expect(Self.problems(["included_segments": ["Subscribed Users"], "small_icn": "ic"]) == ["unknown field 'small_icn'"])
    }

    @Test func theListsDoNotOverlap() {
        let lists = [OneSignalNotificationFields.honoured, OneSignalNotificationFields.honouredLegacyAndChannel,
                     OneSignalNotificationFields.otherChannels, OneSignalNotificationFields.honouredAndroid]
        #expect(lists.map(\.count).reduce(0, +) == lists.reduce(Set<String>()) { $0.union($1) }.count)
    }

    @Test func targetChannelMustBePush() throws {
        let push = try Self.parse(["included_segments": ["Subscribed Users"], "target_channel": "push"]).get()
        #expect(push.targeting == .segments(included: ["Subscribed Users"], excluded: []))
        #expect(Self.problems(["included_segments": ["Subscribed Users"], "target_channel": "email"])
                == [NotificationSendParser.Messages.targetChannel])
        #expect(Self.problems(["included_segments": ["Subscribed Users"], "target_channel": 1])
                == ["target_channel must be a string, got number"])
    }

    @Test func isIosFalseExcludesAppleAndTrueOrAbsentChangesNothing() throws {
        #expect(try Self.parse(["included_segments": ["All"], "isIos": false]).get().appleExcluded)
        #expect(try !Self.parse(["included_segments": ["All"], "isIos": true]).get().appleExcluded)
        #expect(try !Self.parse(["included_segments": ["All"]]).get().appleExcluded)
        #expect(Self.problems(["included_segments": ["All"], "isIos": "no"]) == ["isIos must be a boolean, got string"])
    }

    @Test func legacyTargetingSpellings() throws {
        #expect(try Self.parse(["include_player_ids": ["sub_1", "sub_2"]]).get().targeting == .subscriptionIDs(["sub_1", "sub_2"]))
        #expect(try Self.parse(["include_external_user_ids": ["u1"]]).get().targeting
                == .aliases([AliasTarget(label: "external_id", values: ["u1"])]))
        #expect(Self.problems(["include_player_ids": ["sub_1"], "include_subscription_ids": ["sub_2"]])
                == [SendMessages.exactlyOneTargetingMethod])
        #expect(Self.problems(["include_external_user_ids": ["u1"], "include_aliases": ["external_id": ["u2"]]])
                == [SendMessages.exactlyOneTargetingMethod])
        #expect(Self.problems(["include_player_ids": [1]]) == ["include_player_ids[0] must be a string, got number"])
    }

    @Test func liveActivitySendsKeepTheModernSpellingsOnly() {
        var reader = FieldReader(["include_player_ids": ["sub_1"]])
        #expect(AudienceTargeting.read(&reader) == nil)
        reader.rejectUnknownFields()
        #expect(reader.problems == [SendMessages.exactlyOneTargetingMethod, "unknown field 'include_player_ids'"])
    }
}
