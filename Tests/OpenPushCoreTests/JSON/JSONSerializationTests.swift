import OpenPushCore
import Testing

/// `serialized` and `serializedBytes`: compact, keys in order, strings escaped exactly as JSON
/// needs, non-ASCII copied as UTF-8, and the text parses back to the same value.
@Suite struct JSONSerializationTests {
    @Test func compactWithKeysInOrder() {
        let value: JSONValue = ["b": 1, "a": [true, false, nil], "c": ["x": -7, "y": 1.5], "d": .double(.infinity)]
        #expect(value.serialized == #"{"b":1,"a":[true,false,null],"c":{"x":-7,"y":1.5},"d":null}"#)
        #expect(value.serializedBytes == Array(value.serialized.utf8))
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote \" and \\ backslash", #""quote \" and \\ backslash""#),
        ("lines\n\r\ttab", #""lines\n\r\ttab""#),
        ("\u{08}\u{0C}\u{01}\u{1F}", #""\b\f\u0001\u001f""#),
        ("café ☕️ 𝄞", "\"café ☕️ 𝄞\""),
        ("", #""""#),
    ])
    func stringsAreEscapedAsJSONNeeds(_ text: String, _ expected: String) throws {
        let value = JSONValue.string(text)
        #expect(value.serialized == expected)
        #expect(try JSONValue.parse(value.serialized) == value)
        let keyed: JSONValue = .object([text: .string(text)])
        #expect(keyed.serialized == "{\(expected):\(expected)}")
    }
}
