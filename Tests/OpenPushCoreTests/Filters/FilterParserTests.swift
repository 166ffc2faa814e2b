import Testing
import OpenPushCore

@Suite struct FilterParserTests {
    func parsed(_ entries: JSONValue) throws -> FilterExpression {
        try FilterParser.parse(entries).get()
    }

    func problems(_ entries: JSONValue) -> [String] {
        guard case .failure(let found) = FilterParser.parse(entries) else { return [] }
        return found.messages
    }

    @Test func entriesAreAndedAndORSplitsGroupsWithAndBindingTighter() throws {
        let expression = try parsed([
            ["field": "language", "relation": "=", "value": "en"],
            ["field": "country", "relation": "=", "value": "US"],
            ["operator": "OR"],
            ["field": "session_count", "relation": ">", "value": 5],
        ])
        #expect(expression.groups == [
            [.language(.equals("en")), .country(.equals("US"))],
            [.sessionCount(.greaterThan(5))],
        ])
    }

    @Test func anAndOperatorChangesNothing() throws {
        let expression = try parsed([
            ["field": "language", "relation": "exists"], ["operator": "AND"], ["field": "country", "relation": "not_exists"],
        ])
        #expect(expression.groups == [[.language(.exists), .country(.notExists)]])
    }

    @Test func opIsASynonymOfRelation() throws {
        let byOp = try parsed([["field": "tag", "key": "level", "op": ">", "value": "10"]])
        let byRelation = try parsed([["field": "tag", "key": "level", "relation": ">", "value": 10]])
        #expect(byOp == byRelation)
        #expect(byOp.groups == [[.tag(key: "level", .number(.greaterThan, 10))]])
        let both = try parsed([["field": "tag", "key": "level", "relation": "<", "op": "<", "value": 1.5]])
        #expect(both.groups == [[.tag(key: "level", .number(.lessThan, 1.5))]])
        #expect(problems([["field": "tag", "key": "k", "relation": "<", "op": ">", "value": 1]])
            == ["filters[0]: relation and op disagree"])
    }

    @Test func everyTagRelation() throws {
        let expression = try parsed([
            ["field": "tag", "key": "plan", "relation": "=", "value": "pro"],
            ["field": "tag", "key": "plan", "relation": "!=", "value": 3],
            ["field": "tag", "key": "plan", "relation": "exists"],
            ["field": "tag", "key": "plan", "relation": "not_exists"],
            ["field": "tag", "key": "plan", "relation": "in_array", "value": ["a", 2]],
            ["field": "tag", "key": "plan", "relation": "not_in_array", "value": ["b"]],
            ["field": "tag", "key": "paid_at", "relation": "time_elapsed_gt", "value": 3600],
            ["field": "tag", "key": "paid_at", "relation": "time_elapsed_lt", "value": "60"],
            ["field": "tag", "key": "score", "relation": "<", "value": "-2.5"],
        ])
        #expect(expression.groups == [[
            .tag(key: "plan", .text(.equals("pro"))),
            .tag(key: "plan", .text(.notEquals("3"))),
            .tag(key: "plan", .text(.exists)),
            .tag(key: "plan", .text(.notExists)),
            .tag(key: "plan", .text(.inArray(["a", "2"]))),
            .tag(key: "plan", .text(.notInArray(["b"]))),
            .tag(key: "paid_at", .timeElapsed(.greaterThan, seconds: 3600)),
            .tag(key: "paid_at", .timeElapsed(.lessThan, seconds: 60)),
            .tag(key: "score", .number(.lessThan, -2.5)),
        ]])
    }

    @Test func sessionsAppVersionAndNumbersAsText() throws {
        let expression = try parsed([
            ["field": "last_session", "relation": ">", "hours_ago": 24],
            ["field": "first_session", "relation": "<", "hours_ago": "1.5"],
            ["field": "session_count", "relation": "!=", "value": "3"],
            ["field": "app_version", "relation": ">", "value": "1.10.2"],
            ["field": "app_version", "relation": "<", "value": 2],
            ["field": "app_version", "relation": "=", "value": 2.0],
        ])
        #expect(expression.groups == [[
            .lastSession(.greaterThan, hoursAgo: 24),
            .firstSession(.lessThan, hoursAgo: 1.5),
            .sessionCount(.notEquals(3)),
            .appVersion(.version(.greaterThan, "1.10.2")),
            .appVersion(.version(.lessThan, "2")),
            .appVersion(.text(.equals("2"))),
        ]])
    }

    @Test func everyBadEntryIsReportedWithItsIndex() {
        #expect(problems([
            ["field": "tag", "key": "level", "relation": ">", "value": "high"],
            ["field": "tag", "relation": "=", "value": "x"],
            ["field": "colour", "relation": "=", "value": "red"],
            ["field": "language", "relation": ">=", "value": "en"],
            ["field": "session_count", "relation": "in_array", "value": [1]],
            ["field": "last_session", "relation": ">"],
            ["field": "language", "relation": "=", "value": true],
            ["field": "country", "relation": "in_array", "value": []],
            ["relation": "=", "value": "x"],
            ["field": "language", "value": "en"],
            ["field": "app_version", "relation": ">", "value": "1.x"],
            ["field": "language", "relation": "exists", "hour_ago": 3],
            "language = en",
            ["field": "tag", "key": "t", "relation": "time_elapsed_gt", "value": "soon"],
        ]) == [
            "filters[0]: relation '>' needs a numeric value",
            "filters[1]: tag filters need a key",
            "filters[2]: unknown field 'colour'",
            "filters[3]: unknown relation '>='",
            "filters[4]: relation 'in_array' does not apply to session_count (use =, !=, >, <)",
            "filters[5]: last_session filters need hours_ago, a number of 0 or more",
            "filters[6]: relation '=' needs a string or number value",
            "filters[7]: relation 'in_array' needs a non-empty array of strings as its value",
            "filters[8]: field is required",
            "filters[9]: relation is required",
            "filters[10]: relation '>' on app_version needs a version such as 1.2.3",
            "filters[11]: unknown key 'hour_ago'",
            "filters[12] must be an object, got string",
            "filters[13]: relation 'time_elapsed_gt' needs a numeric value",
        ])
    }

    @Test(arguments: ["nan", "inf", "0x10", "1e", "", " 1"])
    func numericStringsMustBePlainDecimals(_ text: String) {
        #expect(problems([["field": "session_count", "relation": ">", "value": .string(text)]])
            == ["filters[0]: relation '>' needs a numeric value"])
    }

    /// `now - hours_ago` becomes a PostgreSQL timestamp: past about 58 million hours there is
    /// none, and the query would fail.
    @Test func hoursAgoStaysWithinWhatATimestampCanHold() throws {
        #expect(problems([["field": "last_session", "relation": ">", "hours_ago": 1e300],
                          ["field": "first_session", "relation": "<", "hours_ago": "9223372036854775808"]]) == [
            "filters[0]: last_session filters need hours_ago of 10000000 or less",
            "filters[1]: first_session filters need hours_ago of 10000000 or less",
        ])
        #expect(try parsed([["field": "last_session", "relation": ">", "hours_ago": 10_000_000]])
            == FilterExpression(groups: [[.lastSession(.greaterThan, hoursAgo: 10_000_000)]]))
    }

    @Test func anORMustStandBetweenTwoConditions() {
        let condition: JSONValue = ["field": "language", "relation": "exists"]
        #expect(problems([["operator": "OR"], condition]) == ["filters[0]: an OR must stand between two conditions"])
        #expect(problems([condition, ["operator": "OR"]]) == ["filters[1]: an OR must stand between two conditions"])
        #expect(problems([condition, ["operator": "OR"], ["operator": "OR"], condition])
            == ["filters[2]: an OR must stand between two conditions"])
        #expect(problems([condition, ["operator": "XOR"]]) == ["filters[1]: operator must be \"OR\" or \"AND\""])
        #expect(problems([condition, ["operator": "OR", "field": "tag"], condition])
            == ["filters[1]: unknown key 'field' in an operator entry"])
        // A bad entry still counts as a condition, so the OR after it is in place.
        #expect(problems([["field": "nope", "relation": "exists"], ["operator": "or"], condition]) == ["filters[0]: unknown field 'nope'"])
    }

    @Test func sizeAndShapeOfTheArray() {
        let condition: JSONValue = ["field": "language", "relation": "exists"]
        #expect((try? FilterParser.parse(.array(Array(repeating: condition, count: 200))).get()) != nil)
        #expect(problems(.array(Array(repeating: condition, count: 201))) == ["filters: at most 200 entries"])
        #expect(problems([]) == ["filters: at least one condition is required"])
        #expect(problems([["operator": "AND"]]) == ["filters: at least one condition is required"])
        #expect(problems(["field": "language"]) == ["filters must be an array, got object"])
    }

    @Test func fieldReaderNamesTheBodyField() {
        var reader = FieldReader(["where": [["field": "colour", "relation": "="]]])
        #expect(reader.filters("where") == nil)
        #expect(reader.filters("filters", required: true) == nil)
        #expect(reader.problems == ["where[0]: unknown field 'colour'", "filters is required"])
    }
}
