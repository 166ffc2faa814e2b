import Testing
import OpenPushCore

extension StoredSendTests {
    @Test(arguments: NotificationPrivacy.allCases)
    func thePrivacyFieldsRoundTrip(_ privacy: NotificationPrivacy) throws {
        var send = Self.everyField()
        send.privacyText = ["en": "New {{ first_name }}", "fr": "Nouveau"]
        send.privacy = privacy
        let decoded = try Self.roundTrip(send)
        #expect(decoded == send)
        #expect(decoded.privacy == privacy && decoded.privacyText == send.privacyText)
        // `full` is the default and is not stored.
        #expect(StoredSend.encode(send).objectValue?["privacy"] == (privacy == .full ? nil : .string(privacy.rawValue)))
    }

    @Test func aParsedIdsOnlySendKeepsItsPrivacyThroughTheStore() throws {
        let send = try NotificationSendParser.parse([
            "included_segments": ["Subscribed Users"], "contents": ["en": "x"], "privacy": "ids_only", "privacy_text": "New",
        ]).get()
        #expect(send.privacy == .idsOnly && send.privacyText == ["en": "New"])
        #expect(try Self.roundTrip(send) == send)
    }

    @Test func anUnknownStoredPrivacyIsRefused() {
        #expect(Self.refusal(Self.changed { $0["privacy"] = "secret" }) == "stored privacy 'secret' is unknown")
        #expect(Self.refusal(Self.changed { $0["privacy_text"] = ["en": 1] })
                == "stored send field 'privacy_text.en' must be a string, got number")
    }
}
