import Testing
import OpenPushCore

/// `quiet_hours` and `muted_threads` as the `/v1` registration and the REST `PATCH` read them.
@Suite struct DeviceAttentionFieldsTests {
    static let token = String(repeating: "ab", count: 32)

    static func registration(_ fields: JSONObject) throws(InvalidInput) -> SubscriptionRegistration {
        var body: JSONObject = ["token": .string(token)]
        for (key, value) in fields { body[key] = value }
        return try SubscriptionRegistration(body: body)
    }

    static func problems(_ fields: JSONObject) -> [String] {
        do {
            _ = try registration(fields)
            return []
        } catch {
            return error.messages
        }
    }

    @Test func absentKeepsNullClearsAWindowSets() throws {
        #expect(try Self.registration([:]).quietHours == .keep)
        #expect(try Self.registration([:]).mutedThreads == nil)
        #expect(try Self.registration(["quiet_hours": .null]).quietHours == .clear)
        #expect(try Self.registration(["quiet_hours": ["start": "22:00", "end": "07:00"]]).quietHours
            == .set(QuietHoursWindow(start: 1320, end: 420)!))
        #expect(try Self.registration(["muted_threads": .null]).mutedThreads == [])
        #expect(try Self.registration(["muted_threads": []]).mutedThreads == [])
        #expect(try Self.registration(["muted_threads": ["b", "a", "b"]]).mutedThreads == ["b", "a"])
    }

    @Test func badQuietHoursAreNamed() {
        #expect(Self.problems(["quiet_hours": "22:00-07:00"])
            == [#"quiet_hours must be an object {"start": "HH:MM", "end": "HH:MM"} or null, got string"#])
        #expect(Self.problems(["quiet_hours": ["start": "22:00"]]) == ["quiet_hours.end is required"])
        #expect(Self.problems(["quiet_hours": ["start": "10pm", "end": 7]])
            == [#"quiet_hours.start must be a time "HH:MM" from 00:00 to 23:59"#,
                #"quiet_hours.end must be a time "HH:MM" from 00:00 to 23:59, got number"#])
        #expect(Self.problems(["quiet_hours": ["start": "07:00", "end": "07:00"]])
            == ["quiet_hours.start and quiet_hours.end must differ"])
        #expect(Self.problems(["quiet_hours": ["start": "22:00", "end": "07:00", "zone": "UTC"]])
            == ["unknown field 'quiet_hours.zone'"])
    }

    @Test func badMutedThreadsAreNamed() {
        #expect(Self.problems(["muted_threads": "scores"]) == ["muted_threads must be an array of strings or null, got string"])
        #expect(Self.problems(["muted_threads": ["ok", 3]]) == ["muted_threads[1] must be a string, got number"])
        #expect(Self.problems(["muted_threads": ["", .string(String(repeating: "x", count: 65))]])
            == ["muted_threads[0] must be 1 to 64 characters", "muted_threads[1] must be 1 to 64 characters"])
        #expect(Self.problems(["muted_threads": .array((0...100).map { .string("t\($0)") })])
            == ["muted_threads must hold at most 100 thread ids"])
        #expect(Self.problems(["muted_threads": .array((0..<100).map { .string("t\($0)") })]) == [])
        #expect(Self.problems(["muted_threads": [.string(String(repeating: "é", count: 64))]]) == [])
    }

    @Test func aPatchMayChangeOnlyThePreferencesAndNamesTheirPath() throws {
        let changes = try SubscriptionChanges(body: ["subscription": ["quiet_hours": ["start": "01:00", "end": "02:00"]]])
        #expect(changes.quietHours == .set(QuietHoursWindow(start: 60, end: 120)!))
        #expect(changes.enabled == nil && changes.tags == nil && changes.mutedThreads == nil)
        #expect(try SubscriptionChanges(body: ["muted_threads": ["a"]]).mutedThreads == ["a"])
        #expect(try SubscriptionChanges(body: ["quiet_hours": .null]).quietHours == .clear)
        #expect(throws: InvalidInput(["subscription.quiet_hours.start is required"])) {
            try SubscriptionChanges(body: ["subscription": ["quiet_hours": ["end": "02:00"]]])
        }
        #expect(throws: InvalidInput(["subscription.muted_threads[0] must be 1 to 64 characters"])) {
            try SubscriptionChanges(body: ["subscription": ["muted_threads": [""]]])
        }
    }
}
