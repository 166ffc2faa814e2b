import Testing
import OpenPushCore

/// Tag bounds: 100 keys, keys of 1-128 characters, values of at most 1,024 bytes.
@Suite struct TagLimitsTests {
    static let token = String(repeating: "ab", count: 32)

    static func tags(_ count: Int, prefix: String = "k", value: String = "v") -> JSONValue {
        .object(JSONObject((0..<count).map { ("\(prefix)\($0)", JSONValue.string(value)) }))
    }

    static func registration(_ tags: JSONValue) throws(InvalidInput) -> SubscriptionRegistration {
        try SubscriptionRegistration(body: ["token": .string(token), "tags": tags])
    }

    @Test func aRequestCarriesAtMost100KeysAndRemovalsDoNotCount() throws {
        #expect(try Self.registration(Self.tags(100)).tags.assigned.count == 100)
        var withRemovals = Self.tags(100).objectValue!
        for index in 0..<50 { withRemovals["gone\(index)"] = "" }
        #expect(try Self.registration(.object(withRemovals)).tags.removed.count == 50)
        #expect(throws: InvalidInput(["tags: at most 100 keys per device, got 101"])) {
            try Self.registration(Self.tags(101))
        }
    }

    @Test func keysAre1To128CharactersAndValuesAtMost1024Bytes() throws {
        let longest = String(repeating: "é", count: 128)
        let biggest = String(repeating: "é", count: 512)
        #expect(try Self.registration([longest: .string(biggest)]).tags.assigned == [longest: biggest])
        #expect(throws: InvalidInput([
            // In key order: "" < "v" < "é…".
            "tags: a key must be 1-128 characters, got 0",
            "tags.v: a tag value must be at most 1024 bytes, got 1025",
            "tags: a key must be 1-128 characters, got 129",
        ])) {
            try Self.registration(["": "x", longest + "a": "x", "v": .string(biggest + "a")])
        }
        // Removing a key that is too long now (stored before the bound) is allowed.
        #expect(try Self.registration([longest + "a": ""]).tags.removed == [longest + "a"])
        #expect(throws: InvalidInput(["tags: a key must be 1-128 characters"])) {
            try Self.registration(["": ""])
        }
    }

    @Test func everyRouteBodyAppliesTheBoundsNamingItsField() {
        #expect(throws: InvalidInput(["subscription.tags: at most 100 keys per device, got 101"])) {
            try SubscriptionChanges(body: ["subscription": ["tags": Self.tags(101)]])
        }
        #expect(throws: InvalidInput(["tags.v: a tag value must be at most 1024 bytes, got 1025"])) {
            try SubscriptionChanges(body: ["tags": ["v": .string(String(repeating: "x", count: 1025))]])
        }
        #expect(throws: InvalidInput(["properties.tags: at most 100 keys per user, got 101"])) {
            try UserCreation(body: ["identity": ["external_id": "u-1"], "properties": ["tags": Self.tags(101)]])
        }
    }

    @Test func theCountAfterMergingIsBounded() {
        // 90 stored + 20 new.
        #expect(TagLimits.countProblem(before: 90, after: 110, holder: .device)
                == "tags: at most 100 keys per device: this change would leave 110")
        // 90 stored + 10 new - 5 removed.
        #expect(TagLimits.countProblem(before: 90, after: 95, holder: .device) == nil)
        #expect(TagLimits.countProblem(before: 0, after: 100, holder: .user) == nil)
        #expect(TagLimits.countProblem(before: 0, after: 101, holder: .user) == "tags: at most 100 keys per user: this change would leave 101")
        // A device over the bound from before may change and remove tags, not add them.
        #expect(TagLimits.countProblem(before: 150, after: 150, holder: .device) == nil)
        #expect(TagLimits.countProblem(before: 150, after: 140, holder: .device) == nil)
        #expect(TagLimits.countProblem(before: 150, after: 151, holder: .device) != nil)
        #expect(TagChanges(["a": "1", "b": ""]).assignsKeys)
        #expect(!TagChanges(["b": ""]).assignsKeys)
    }
}
