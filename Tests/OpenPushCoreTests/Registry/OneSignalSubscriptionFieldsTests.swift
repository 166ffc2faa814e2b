import Testing
import OpenPushCore

/// OneSignal's `Subscription` object in the REST bodies: `notification_types` and `enabled` as
/// one fact, the Apple types only, and the fields OpenPush does not keep accepted and checked.
@Suite struct OneSignalSubscriptionFieldsTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func notificationTypesSetEnabledAndMustAgreeWithIt() throws {
        #expect(try SubscriptionChanges(body: ["subscription": ["notification_types": -2]]).enabled == false)
        #expect(try SubscriptionChanges(body: ["subscription": ["notification_types": -31]]).enabled == false)
        #expect(try SubscriptionChanges(body: ["subscription": ["notification_types": 15]]).enabled == true)
        #expect(try SubscriptionChanges(body: ["notification_types": 1, "enabled": true]).enabled == true)
        #expect(throws: InvalidInput(["enabled (false) and notification_types (1) disagree: notification_types above 0 "
                                      + "is subscribed, 0 or below is not"])) {
            try SubscriptionChanges(body: ["notification_types": 1, "enabled": false])
        }
    }

    @Test func creationNeedsAnAppleTypeAndAToken() throws {
        let creation = try SubscriptionCreation(body: ["subscription": [
            "type": "macOSPush", "token": .string(Self.token.uppercased()), "test_type": 1, "sdk": "050210", "session_time": 5]])
        #expect(creation.type == .macOSPush)
        #expect(creation.token == Self.token)
        #expect(creation.fields.environment == .sandbox)
        #expect(creation.fields.sdk == "050210")
        #expect(creation.fields.sessionTime == 5)
        #expect(creation.fields.ignored == [])
        #expect(throws: InvalidInput(["subscription.type 'HuaweiPush' is not supported: OpenPush reaches Android devices "
                                      + "through Firebase Cloud Messaging only (AndroidPush), not Amazon's or Huawei's push "
                                      + "services; it supports iOSPush, macOSPush, AndroidPush, ChromePush, FirefoxPush, SafariPush, EdgePush"])) {
            try SubscriptionCreation(body: ["subscription": ["type": "HuaweiPush", "token": .string(Self.token)]])
        }
        #expect(throws: InvalidInput(["subscription.type 'Pager' is not a OneSignal subscription type; OpenPush supports "
                                      + "iOSPush, macOSPush, AndroidPush, ChromePush, FirefoxPush, SafariPush, EdgePush", "subscription.session_time must be an integer from 0 to 2147483647000"])) {
            try SubscriptionCreation(body: ["subscription": ["type": "Pager", "token": .string(Self.token), "session_time": "x"]])
        }
        #expect(throws: InvalidInput(["subscription is required"])) { try SubscriptionCreation(body: [:]) }
        #expect(throws: InvalidInput("subscription.id is assigned by OpenPush and cannot be set")) {
            try SubscriptionCreation(body: ["subscription": ["type": "iOSPush", "token": .string(Self.token), "id": "sub_x"]])
        }
    }

    @Test func aTransferNamesExactlyOneAlias() throws {
        #expect(try SubscriptionTransfer(body: ["identity": ["onesignal_id": "usr_1"]]).owner == .userID("usr_1"))
        #expect(try SubscriptionTransfer(body: ["identity": ["crm": "42"]]).owner == .alias(label: "crm", value: "42"))
        #expect(throws: InvalidInput("identity must hold exactly one alias (label: value) naming the new owner")) {
            try SubscriptionTransfer(body: ["identity": [:]])
        }
        #expect(throws: InvalidInput(["identity is required", "unknown field 'owner'"])) {
            try SubscriptionTransfer(body: ["owner": ["crm": "42"]])
        }
    }
}
