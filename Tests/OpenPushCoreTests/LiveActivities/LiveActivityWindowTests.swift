import Testing
import OpenPushCore

@Suite struct LiveActivityWindowTests {
    static let start = 1_756_598_400.0
    static let minute = 60.0
    static let hour = 3600.0

    @Test(arguments: [
        (LiveActivityEvent.start, 7 * hour + 59 * minute, true),
        (.start, 8 * hour + 1 * minute, false),
        (.update, 7 * hour + 59 * minute, true),
        (.update, 8 * hour, false),
        (.update, 8 * hour + 1 * minute, false),
        (.end, 8 * hour + 1 * minute, true),
        (.end, 11 * hour + 59 * minute, true),
        (.end, 12 * hour, false),
        (.end, 12 * hour + 1 * minute, false),
        (.update, 0, true),
    ])
    func selectsWithinTheWindow(_ event: LiveActivityEvent, _ age: Double, _ selected: Bool) {
        #expect(LiveActivityWindow.selects(event, startedAt: Self.start, endedAt: nil, now: Self.start + age) == selected)
    }

    @Test(arguments: LiveActivityEvent.allCases)
    func anEndedRowIsNeverSelected(_ event: LiveActivityEvent) {
        #expect(!LiveActivityWindow.selects(event, startedAt: Self.start, endedAt: Self.start + 1, now: Self.start + 2))
    }

    @Test func staleAtIsClampedToTheActiveWindow() {
        #expect(LiveActivityWindow.staleAt(requested: nil, startedAt: Self.start) == Self.start + 8 * Self.hour)
        #expect(LiveActivityWindow.staleAt(requested: Self.start + 24 * Self.hour, startedAt: Self.start) == Self.start + 8 * Self.hour)
        #expect(LiveActivityWindow.staleAt(requested: Self.start + Self.hour, startedAt: Self.start) == Self.start + Self.hour)
    }
}

@Suite struct LiveActivityInputTests {
    static let token64 = String(repeating: "ab", count: 32)

    @Test func acceptsHexTokensOf64To512Characters() {
        #expect(LiveActivityInput.tokenProblem("update_token", .string(Self.token64)) == nil)
        #expect(LiveActivityInput.tokenProblem("update_token", .string(String(repeating: "AF", count: 256))) == nil)
    }

    @Test(arguments: [
        (JSONValue.null, "update_token is required"),
        (.string(""), "update_token is required"),
        (.int(5), "update_token must be a string, got number"),
        (.string(String(repeating: "zz", count: 32)), "update_token must be hexadecimal"),
        (.string(String(repeating: "a", count: 65)), "update_token must have an even number of characters"),
        (.string(String(repeating: "ab", count: 31)), "update_token must be 64–512 characters, got 62"),
        (.string(String(repeating: "ab", count: 257)), "update_token must be 64–512 characters, got 514"),
    ])
    func rejectsBadTokens(_ value: JSONValue, _ message: String) {
        #expect(LiveActivityInput.tokenProblem("update_token", value) == message)
    }

    @Test func staleAtAcceptsNumbersAndNumericStrings() throws {
        #expect(try LiveActivityInput.staleAt(.int(1_756_627_200)).get() == 1_756_627_200)
        #expect(try LiveActivityInput.staleAt(.double(1_756_627_200.5)).get() == 1_756_627_200.5)
        #expect(try LiveActivityInput.staleAt(.string("1756627200")).get() == 1_756_627_200)
        #expect(try LiveActivityInput.staleAt(nil).get() == nil)
        #expect(try LiveActivityInput.staleAt(.null).get() == nil)
    }

    @Test(arguments: [
        (JSONValue.int(-1), "stale_at must be a finite positive unix timestamp, got -1"),
        (.int(0), "stale_at must be a finite positive unix timestamp, got 0"),
        (.double(-2.5), "stale_at must be a finite positive unix timestamp, got -2.5"),
        (.double(.infinity), "stale_at must be a finite positive unix timestamp, got inf"),
        (.string("NaN"), "stale_at must be a finite positive unix timestamp, got nan"),
        (.string("-inf"), "stale_at must be a finite positive unix timestamp, got -inf"),
        (.bool(true), "stale_at must be a number of unix seconds, got boolean"),
        (.object(JSONObject()), "stale_at must be a number of unix seconds, got object"),
        (.array([]), "stale_at must be a number of unix seconds, got array"),
        (.string("tomorrow"), "stale_at must be a number of unix seconds, got \"tomorrow\""),
    ])
    func staleAtRejections(_ value: JSONValue, _ message: String) {
        #expect(throws: LiveActivityInput.StaleAtProblem(message: message)) { try LiveActivityInput.staleAt(value).get() }
    }
}
