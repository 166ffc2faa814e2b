import Testing
import OpenPushCore

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue.parse(#"{"a": 1, "b": -2.5, "c": "x\ny", "d": [true, false, null], "e": {}}"#)
        let object = try #require(value.objectValue)
        #expect(object["a"] == .int(1))
        #expect(object["b"] == .double(-2.5))
        #expect(object["c"] == .string("x\ny"))
        #expect(object["d"] == [true, false, nil])
        #expect(object["e"] == .object(JSONObject()))
    }

    @Test func keepsKeyOrder() throws {
        let object = try #require(try JSONValue.parse(#"{"z": 1, "a": 2, "m": 3}"#).objectValue)
        #expect(object.keys == ["z", "a", "m"])
    }

    @Test func integersStayIntegersAndExponentsAreDoubles() throws {
        #expect(try JSONValue.parse("10") == .int(10))
        #expect(try JSONValue.parse("10.0") == .double(10))
        #expect(try JSONValue.parse("1e3") == .double(1000))
        #expect(try JSONValue.parse("-0") == .int(0))
        // Larger than Int64: still a number, as a double.
        #expect(try JSONValue.parse("99999999999999999999") == .double(1e20))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        #expect(try JSONValue.parse(#""\u00e9\ud83d\ude00\/\\\"""#) == .string("é😀/\\\""))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "{'a': 1}", "01", "1.", "-", "tru", "nul", "\"abc",
        "\"\\x\"", "\"\\ud800\"", "{} {}", "[1] x", "\"\u{01}\"", "NaN", "Infinity",
    ])
    func rejectsMalformedDocuments(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        #expect(throws: Never.self) { try JSONValue.parse(Array(deep.utf8), maxDepth: 400) }
    }

    @Test func serializationRoundTrips() throws {
        let original: JSONValue = ["name": "a \"quoted\"\n\u{01} é", "n": 3, "f": 1756598400.0, "list": [nil, true, 0.25], "o": ["k": "v"]]
        let text = original.serialized
        #expect(try JSONValue.parse(text) == original)
        #expect(text.contains("1756598400.0"))
        #expect(text.contains("\\u0001"))
    }

    @Test func serializationKeepsKeyOrder() {
        let value: JSONValue = ["b": 1, "a": 2]
        #expect(value.serialized == #"{"b":1,"a":2}"#)
    }

    @Test func nonFiniteDoublesSerializeAsNull() {
        #expect(JSONValue.double(.nan).serialized == "null")
        #expect(JSONValue.double(.infinity).serialized == "null")
    }

    @Test func objectEqualityIgnoresKeyOrder() throws {
        #expect(try JSONValue.parse(#"{"a":1,"b":2}"#) == JSONValue.parse(#"{"b":2,"a":1}"#))
    }

    @Test func intValueAcceptsWholeDoublesOnly() {
        #expect(JSONValue.double(10).intValue == 10)
        #expect(JSONValue.double(10.5).intValue == nil)
        #expect(JSONValue.bool(true).intValue == nil)
        #expect(JSONValue.bool(true).doubleValue == nil)
    }
}
