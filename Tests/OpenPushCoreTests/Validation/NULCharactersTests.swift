import Testing
import OpenPushCore

@Suite struct NULCharactersTests {
    @Test func namesEveryPlaceInBodyOrderTheWayValidationNamesFields() throws {
        let body = try #require(try JSONValue.parse(#"""
            {"name": "a\u0000b", "ok": "fine", "data": {"order": "\u0000", "n": 1},
             "filters": [{"field": "tag", "value": "x"}, {"value": "y\u0000"}], "ids": ["a", "\u0000"],
             "tags": {"k\u0000": "v"}, "k\u0000": 1}
            """#).objectValue)
        #expect(NULCharacters.problems(in: body) == [
            "name must not contain NUL characters",
            "data.order must not contain NUL characters",
            "filters[1].value must not contain NUL characters",
            "ids[1] must not contain NUL characters",
            "tags keys must not contain NUL characters",
            "field names must not contain NUL characters",
        ])
    }

    @Test func otherControlCharactersAndEmojiAreFine() throws {
        let body = try #require(try JSONValue.parse(#"{"a": "\u0001\t\n🚀", "b": [true, null, 1e308]}"#).objectValue)
        #expect(NULCharacters.problems(in: body).isEmpty)
    }

    @Test func aBodyFullOfNULsNamesOnlyTheFirstFew() {
        let body = JSONObject((0..<1000).map { ("f\($0)", JSONValue.string("\u{0}")) })
        let problems = NULCharacters.problems(in: body)
        #expect(problems.count == NULCharacters.reportLimit)
        #expect(problems.first == "f0 must not contain NUL characters")
    }
}
