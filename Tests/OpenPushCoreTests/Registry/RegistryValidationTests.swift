import Testing
import OpenPushCore

/// The pure rules of the device registry: tokens, tags, and the bodies of its routes.
@Suite struct RegistryValidationTests {
    @Test(arguments: [String(repeating: "ab", count: 8), String(repeating: "0F", count: 32), String(repeating: "1a", count: 50),
                      String(repeating: "ff", count: 256)])
    func tokensOfAnyEvenLengthInBoundsAreAccepted(_ token: String) {
        #expect(DeviceToken.problem(token) == nil)
        #expect(DeviceToken.normalized(token) == token.lowercased())
    }

    @Test func badTokensSayWhatIsWrong() {
        #expect(DeviceToken.problem("abcd") == "must be 16 to 512 hex characters, got 4")
        #expect(DeviceToken.problem(String(repeating: "a", count: 514)) == "must be 16 to 512 hex characters, got 514")
        #expect(DeviceToken.problem(String(repeating: "g", count: 32)) == "must be hex (0-9, a-f)")
        #expect(DeviceToken.problem("<" + String(repeating: "a", count: 30) + ">") == "must be hex (0-9, a-f)")
        #expect(DeviceToken.problem(String(repeating: "a", count: 33)) == "must have an even number of hex characters")
    }

    @Test func emptyTagValuesRemoveAndOthersMerge() {
        let changes = TagChanges(["level": "7", "gone": "", "also": ""])
        #expect(changes.assigned == ["level": "7"])
        #expect(changes.removed == ["also", "gone"])
        #expect(changes.applied(to: ["level": "1", "gone": "x", "kept": "y"]) == ["level": "7", "kept": "y"])
        #expect(changes.setJSON == #"{"level":"7"}"#)
        #expect(TagChanges.decode(json: #"{"b":"2","a":"1","n":3}"#) == ["a": "1", "b": "2"])
        #expect(TagChanges.none.isEmpty)
    }

    @Test func registrationReadsEveryFieldAndLowerCasesTokens() throws {
        let token = String(repeating: "AB", count: 32)
        let previous = String(repeating: "cd", count: 32)
        let registration = try SubscriptionRegistration(body: [
            "token": .string(token), "platform": "watchos", "environment": "sandbox", "external_id": "u-1",
            "tags": ["a": "1", "b": ""], "language": "fr", "country": "FR", "timezone": "Europe/Paris",
            "app_version": "2.1", "device_model": "Watch7,1", "device_os": "10.2", "enabled": false,
            "previous_token": .string(previous),
        ])
        #expect(registration == SubscriptionRegistration(
            token: token.lowercased(), platform: "watchos", environment: .sandbox, externalID: "u-1",
            tags: TagChanges(["a": "1", "b": ""]), language: "fr", country: "FR", timezone: "Europe/Paris",
            appVersion: "2.1", deviceModel: "Watch7,1", deviceOS: "10.2", enabled: false, previousToken: previous))
        let minimal = try SubscriptionRegistration(body: ["token": .string(previous)])
        #expect(minimal == SubscriptionRegistration(token: previous))
    }

    @Test func registrationNamesEveryProblem() {
        #expect(throws: InvalidInput([
            "token must have an even number of hex characters", "platform must be one of: ios, watchos, macos, android, web",
            "tags.a must be a string, got number", "enabled must be a boolean, got string",
            "previous_token must be hex (0-9, a-f)",
        ])) {
            try SubscriptionRegistration(body: [
                "token": .string(String(repeating: "a", count: 33)), "platform": "windows", "tags": ["a": 1],
                "enabled": "yes", "previous_token": .string(String(repeating: "z", count: 32)), "colour": "red",
            ])
        }
        #expect(throws: InvalidInput(["token is required"])) {
            try SubscriptionRegistration(body: [:])
        }
    }

    /// The environment is parsed into `DeviceEnvironment` at the edge; its error text lists the
    /// values as it always did.
    @Test func environmentIsOneOfTheDeviceEnvironments() throws {
        let token = String(repeating: "ab", count: 32)
        #expect(try SubscriptionRegistration(body: ["token": .string(token), "environment": "sandbox"]).environment == .sandbox)
        #expect(try SubscriptionRegistration(body: ["token": .string(token)]).environment == nil)
        #expect(throws: InvalidInput(["environment must be one of: production, sandbox"])) {
            try SubscriptionRegistration(body: ["token": .string(token), "environment": "staging"])
        }
        #expect(throws: InvalidInput(["environment must be a string, got number"])) {
            try SubscriptionRegistration(body: ["token": .string(token), "environment": 1])
        }
    }

    /// Mobile SDKs add fields over time; an older server must keep registering their devices.
    @Test func registrationIgnoresUnknownFieldsButNotWrongTypes() throws {
        let token = String(repeating: "ab", count: 32)
        let registration = try SubscriptionRegistration(body: [
            "token": .string(token), "language": "en", "push_provider": "apns", "sdk": ["version": "5.2"],
        ])
        #expect(registration == SubscriptionRegistration(token: token, language: "en"))
        #expect(throws: InvalidInput(["language must be a string, got number"])) {
            try SubscriptionRegistration(body: ["token": .string(token), "language": 5, "push_provider": "apns"])
        }
    }

    @Test func subscriptionChangesAreWrappedOrBare() throws {
        #expect(try SubscriptionChanges(body: ["subscription": ["enabled": false, "tags": ["a": ""]]])
            == SubscriptionChanges(enabled: false, tags: TagChanges(["a": ""])))
        #expect(try SubscriptionChanges(body: ["tags": ["a": "1"]]) == SubscriptionChanges(tags: TagChanges(["a": "1"])))
        #expect(throws: InvalidInput(["subscription.enabled must be a boolean, got number",
                                      "unknown field 'subscription.colour'"])) {
            try SubscriptionChanges(body: ["subscription": ["enabled": 1, "colour": "x"]])
        }
        #expect(throws: InvalidInput(["unknown field 'token'"])) {
            try SubscriptionChanges(body: ["subscription": ["enabled": true], "token": "x"])
        }
        #expect(throws: InvalidInput(["subscription must be an object, got array"])) {
            try SubscriptionChanges(body: ["subscription": []])
        }
        #expect(throws: InvalidInput(SubscriptionChanges.nothingToChange)) {
            try SubscriptionChanges(body: ["subscription": [:]])
        }
    }

    @Test func userCreationNeedsAnAliasAndRefusesReservedLabels() throws {
        let creation = try UserCreation(body: ["identity": ["external_id": "u-1", "crm": "42"],
                                               "properties": ["tags": ["vip": "1"], "language": "de"]])
        #expect(creation == UserCreation(identity: ["external_id": "u-1", "crm": "42"],
                                         properties: UserProperties(tags: TagChanges(["vip": "1"]), language: "de")))
        #expect(throws: InvalidInput(["identity is required"])) { try UserCreation(body: [:]) }
        #expect(throws: InvalidInput(["identity must hold at least one alias"])) {
            try UserCreation(body: ["identity": [:]])
        }
        #expect(throws: InvalidInput([
            "identity.onesignal_id is assigned by OpenPush and cannot be set", "identity.x must be 1 to 255 characters",
            "unknown field 'properties.sex'", "unknown field 'subscriptions'",
        ])) {
            try UserCreation(body: ["identity": ["onesignal_id": "usr_1", "x": " "], "properties": ["sex": "?"], "subscriptions": []])
        }
        #expect(throws: InvalidInput(["identity.subscription_id is assigned by OpenPush and cannot be set"])) {
            try IdentityAddition(body: ["identity": ["subscription_id": "sub_1"]])
        }
    }

    @Test func userLookupLabels() {
        #expect(UserLookup(label: "openpush_id", value: "usr_1") == .userID("usr_1"))
        #expect(UserLookup(label: "onesignal_id", value: "usr_1") == .userID("usr_1"))
        #expect(UserLookup(label: "subscription_id", value: "sub_1") == .subscriptionID("sub_1"))
        #expect(UserLookup(label: "external_id", value: "u") == .alias(label: "external_id", value: "u"))
        #expect(UserLookup(label: "crm", value: "9") == .alias(label: "crm", value: "9"))
    }

    @Test func audienceAliasesFollowTheContract() {
        let aliases = AudienceAliases(["external_id": ["u-1"], "openpush_id": ["sub_a"], "subscription_id": ["sub_b"],
                                       "onesignal_id": ["usr_1"], "crm": ["7"], "app": ["x", "y"]])
        #expect(aliases.externalIDs == ["u-1"])
        #expect(aliases.subscriptionIDs == ["sub_a", "sub_b"])
        #expect(aliases.userIDs == ["usr_1"])
        #expect(aliases.custom.map(\.label) == ["app", "crm"])
        #expect(aliases.custom.map(\.values) == [["x", "y"], ["7"]])
    }
}
