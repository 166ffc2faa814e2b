import Testing
import OpenPushCore

@Suite struct FieldReaderTests {
    @Test func readsTypedFields() throws {
        var reader = FieldReader(["name": "App", "shared": true, "minutes": 30.0, "tags": ["a": "1"], "ids": ["x", "y"]])
        #expect(reader.string("name", required: true) == "App")
        #expect(reader.bool("shared") == true)
        #expect(reader.integer("minutes", in: 1...120) == 30)
        #expect(reader.stringMap("tags") == ["a": "1"])
        #expect(reader.stringArray("ids") == ["x", "y"])
        reader.rejectUnknownFields()
        try reader.finish()
    }

    @Test func collectsEveryProblemInReadOrderThenUnknownFieldsInBodyOrder() {
        var reader = FieldReader(["zeta": 1, "name": "   ", "shared": "yes", "minutes": 500, "alpha": 2, "env": "moon"])
        _ = reader.string("name", required: true)
        _ = reader.bool("shared")
        _ = reader.integer("minutes", in: 1...120)
        _ = reader.choice("env", ["sandbox", "production"])
        _ = reader.string("missing", required: true)
        reader.rejectUnknownFields()
        #expect(reader.problems == [
            "name is required",
            "shared must be a boolean, got string",
            "minutes must be an integer from 1 to 120",
            "env must be one of: sandbox, production",
            "missing is required",
            "unknown field 'zeta'",
            "unknown field 'alpha'",
        ])
        #expect(throws: InvalidInput(reader.problems)) { try reader.finish() }
    }

    @Test func rejectsWrongShapes() {
        var reader = FieldReader(["n": 1.5, "b": 1, "m": ["k": 1], "a": [1], "s": 3, "long": "abcdef"])
        _ = reader.integer("n", in: 0...10)
        _ = reader.bool("b")
        _ = reader.stringMap("m")
        _ = reader.stringArray("a")
        _ = reader.string("s")
        _ = reader.string("long", maxLength: 5)
        #expect(reader.problems == [
            "n must be an integer from 0 to 10",
            "b must be a boolean, got number",
            "m.k must be a string, got number",
            "a[0] must be a string, got number",
            "s must be a string, got number",
            "long must be 5 characters or fewer",
        ])
    }

    @Test func nullCountsAsAbsent() throws {
        var reader = FieldReader(["name": nil])
        #expect(reader.string("name") == nil)
        #expect(reader.has("name"))
        try reader.finish()
    }
}
