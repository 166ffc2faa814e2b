import Testing
import OpenPushCore

/// The rules of an app's settings, with a stand-in for the `.p8` parser (the real one is
/// exercised through the routes).
@Suite struct AppFieldsTests {
    static let goodKey = "GOOD KEY"

    static func read(_ object: JSONObject, for purpose: AppFields.Purpose = .create) throws(InvalidInput) -> AppFields {
        try AppFields.read(object, for: purpose, isP256PrivateKey: { $0 == goodKey })
    }

    @Test func readsEveryField() throws {
        let fields = try Self.read([
            "name": "Shop", "apns_env": "sandbox", "apns_p8": .string(Self.goodKey), "apns_key_id": "ABC123DEFG",
            "apns_team_id": "TEAM123456", "apns_bundle_id": "com.example.shop", "apns_watch_bundle_id": "com.example.shop.watch",
            "shared_demo": true, "live_activity_auto_end_minutes": 15, "onesignal_alias": true,
        ])
        var expected = AppFields()
        expected.name = "Shop"
        expected.apnsEnv = .sandbox
        expected.apnsP8 = .set(Self.goodKey)
        expected.apnsKeyID = .set("ABC123DEFG")
        expected.apnsTeamID = .set("TEAM123456")
        expected.apnsBundleID = .set("com.example.shop")
        expected.apnsWatchBundleID = .set("com.example.shop.watch")
        expected.sharedDemo = true
        expected.liveActivityAutoEndMinutes = .set(15)
        expected.onesignalAlias = true
        #expect(fields == expected)
    }

    @Test func createNeedsOnlyAName() throws {
        let fields = try Self.read(["name": "Shop"])
        #expect(fields.name == "Shop")
        #expect(fields.apnsEnv == nil && fields.apnsP8 == .keep && fields.liveActivityAutoEndMinutes == .keep)
    }

    @Test func everyProblemIsNamedInOneError() {
        let body: JSONObject = [
            "name": .string(String(repeating: "n", count: 129)), "apns_env": "staging", "apns_p8": "-----BEGIN RSA…",
            "apns_key_id": 7, "apns_bundle_id": "  ", "shared_demo": "yes", "live_activity_auto_end_minutes": 121,
            "onesignal_alias": 1, "colour": "red",
        ]
        #expect(throws: InvalidInput([
            "name must be 128 characters or fewer",
            "apns_env must be one of: sandbox, production",
            "shared_demo must be a boolean, got string",
            "onesignal_alias must be a boolean, got number",
            AppFields.badAPNSKey,
            "apns_key_id must be a string, got number",
            "apns_bundle_id must not be blank (send null to clear it)",
            "live_activity_auto_end_minutes must be an integer from 1 to 120",
            "unknown field 'colour'",
        ])) { try Self.read(body) }
    }

    @Test func createRequiresAName() {
        #expect(throws: InvalidInput(["name is required"])) { try Self.read([:]) }
        #expect(throws: InvalidInput(["name is required"])) { try Self.read(["name": " "]) }
    }

    @Test func updateKeepsAbsentFieldsAndClearsNulls() throws {
        let fields = try Self.read(["apns_p8": nil, "apns_key_id": nil, "live_activity_auto_end_minutes": nil,
                                    "apns_bundle_id": "com.example.new"], for: .update)
        #expect(fields.name == nil && fields.sharedDemo == nil)
        #expect(fields.apnsP8 == .clear && fields.apnsKeyID == .clear && fields.liveActivityAutoEndMinutes == .clear)
        #expect(fields.apnsBundleID == .set("com.example.new"))
        #expect(fields.apnsTeamID == .keep)
        #expect(try Self.read([:], for: .update) == AppFields())
    }

    @Test func updateCannotClearWhatAnAppMustHave() {
        #expect(throws: InvalidInput([
            "name cannot be null", "apns_env cannot be null", "shared_demo cannot be null", "onesignal_alias cannot be null",
        ])) {
            try Self.read(["name": nil, "apns_env": nil, "shared_demo": nil, "onesignal_alias": nil], for: .update)
        }
    }
}

/// The delivery policy intervals among the app's fields.
@Suite struct AppFieldsDeliveryPolicyTests {
    static func read(_ object: JSONObject, for purpose: AppFields.Purpose) throws(InvalidInput) -> AppFields {
        try AppFields.read(object, for: purpose, isP256PrivateKey: { _ in true })
    }

    @Test func theIntervalsAreReadWithinTheirRanges() throws {
        for purpose in [AppFields.Purpose.create, .update] {
            let fields = try Self.read(["name": "A", "live_activity_update_interval_seconds": 0, "widget_push_interval_seconds": 300],
                                       for: purpose)
            #expect(fields.liveActivityUpdateIntervalSeconds == 0 && fields.widgetPushIntervalSeconds == 300)
            let none = try Self.read(["name": "A"], for: purpose)
            #expect(none.liveActivityUpdateIntervalSeconds == nil && none.widgetPushIntervalSeconds == nil)
        }
        #expect(try Self.read(["name": "A", "live_activity_update_interval_seconds": nil], for: .create)
                    .liveActivityUpdateIntervalSeconds == nil)
    }

    @Test func outOfRangeOrNullOnAnUpdateIsNamed() {
        #expect(throws: InvalidInput(["live_activity_update_interval_seconds must be an integer from 0 to 60",
                                                         "widget_push_interval_seconds must be an integer from 0 to 300"])) {
            try Self.read(["name": "A", "live_activity_update_interval_seconds": 61, "widget_push_interval_seconds": -1], for: .create)
        }
        #expect(throws: InvalidInput(["live_activity_update_interval_seconds cannot be null"])) {
            try Self.read(["live_activity_update_interval_seconds": nil], for: .update)
        }
    }
}
