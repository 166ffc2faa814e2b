import Testing
import OpenPushCore

@Suite struct LiquidFilterTests {
    static let context: JSONObject = [
        "name": "Ana", "empty_text": "", "spaces": "  ", "no": false, "yes": true, "zero": 0, "nothing": nil,
        "list": ["a", "b", "c"], "empty_list": [], "empty_object": [:], "numbers": [1, 2, 3],
        "accented": "élan vital", "emoji": "👋🏽👋🏽👋🏽👋🏽👋🏽", "padded": " \t hi there \n ",
        "html": #"<a href="x">Tom & Jerry's</a>"#,
    ]

    func expectRender(_ source: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        #expect(try liquid(source, Self.context) == expected, sourceLocation: sourceLocation)
    }

    // MARK: - default

    @Test(arguments: [
        ("{{ name | default: 'x' }}", "Ana"),
        ("{{ missing | default: 'x' }}", "x"),
        ("{{ nothing | default: 'x' }}", "x"),
        ("{{ no | default: 'x' }}", "x"),
        ("{{ empty_text | default: 'x' }}", "x"),
        ("{{ empty_list | default: 'x' }}", "x"),
        ("{{ empty_object | default: 'x' }}", "x"),
        // Not empty: zero, true, whitespace.
        ("{{ zero | default: 'x' }}", "0"),
        ("{{ yes | default: 'x' }}", "true"),
        ("{{ spaces | default: 'x' }}", "  "),
        ("{{ missing | default }}", ""),
        ("{{ missing | default: name }}", "Ana"),
        ("{{ missing | default: 42 | plus: 1 }}", "43"),
        ("{{ no | default: 'x', allow_false: true }}", "false"),
        ("{{ nothing | default: 'x', allow_false: true }}", "x"),
        ("{{ empty_text | default: 'x', allow_false: true }}", "x"),
    ])
    func defaultFollowsLiquid(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    // MARK: - Strings

    @Test(arguments: [
        ("{{ 'hello World' | upcase }}", "HELLO WORLD"),
        ("{{ 'Hello World' | downcase }}", "hello world"),
        ("{{ 'hELLO wORLD' | capitalize }}", "Hello world"),
        ("{{ accented | upcase }}", "ÉLAN VITAL"),
        ("{{ 'ÉLAN' | downcase }}", "élan"),
        ("{{ accented | capitalize }}", "Élan vital"),
        ("{{ 'straße' | upcase }}", "STRASSE"),
        ("{{ padded | strip }}", "hi there"),
        ("{{ padded | lstrip }}", "hi there \n "),
        ("{{ padded | rstrip }}", " \t hi there"),
        ("{{ name | append: '!' }}", "Ana!"),
        ("{{ name | prepend: 'Hi ' }}", "Hi Ana"),
        ("{{ name | append: zero }}", "Ana0"),
        ("{{ 'a-b-a' | replace: 'a', 'x' }}", "x-b-x"),
        ("{{ 'a-b-a' | replace: 'a' }}", "-b-"),
        ("{{ 'a-b-a' | replace_first: 'a', 'x' }}", "x-b-a"),
        ("{{ 'a-b-a' | remove: 'a' }}", "-b-"),
        ("{{ 'a-b-a' | remove_first: 'a' }}", "-b-a"),
        ("{{ 'abc' | replace: 'z', 'x' }}", "abc"),
        ("{{ 'ab' | replace: '', '-' }}", "-a-b-"),
        ("{{ 'café café' | replace: 'é', 'e' }}", "cafe cafe"),
        ("{{ html | escape }}", "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"),
        ("{{ 'a b&c/é' | url_encode }}", "a+b%26c%2F%C3%A9"),
        ("{{ 'one two three four' | truncatewords: 2 }}", "one two..."),
        ("{{ 'one two' | truncatewords: 2 }}", "one two"),
        ("{{ 'one two three' | truncatewords: 1, '…' }}", "one…"),
        ("{{ 'one two three' | truncatewords: 0 }}", "one..."),
    ])
    func transformsStrings(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    // MARK: - truncate

    @Test(arguments: [
        ("{{ 'Ground control to Major Tom.' | truncate: 20 }}", "Ground control to..."),
        ("{{ 'Ground control to Major Tom.' | truncate: 25, ', and so on' }}", "Ground control, and so on"),
        ("{{ 'Ground control to Major Tom.' | truncate: 20, '' }}", "Ground control to Ma"),
        ("{{ 'abcdef' | truncate: 6 }}", "abcdef"),
        ("{{ 'abcdefg' | truncate: 6 }}", "abc..."),
        ("{{ 'abcdefg' | truncate: 3 }}", "..."),
        // Liquid: when the ellipsis alone is longer than the length, the ellipsis is the result.
        ("{{ 'abcdefg' | truncate: 2 }}", "..."),
        ("{{ 'abcdefg' | truncate: 0 }}", "..."),
        ("{{ 'abc' | truncate: 0, '' }}", ""),
        ("{{ 'abc' | truncate: '2', '' }}", "ab"),
        // Characters, not bytes or scalars.
        ("{{ 'éééééé' | truncate: 5 }}", "éé..."),
        ("{{ emoji | truncate: 3, '' }}", "👋🏽👋🏽👋🏽"),
        ("{{ emoji | truncate: 4, '…' }}", "👋🏽👋🏽👋🏽…"),
        ("{{ emoji | truncate: 5, '…' }}", "👋🏽👋🏽👋🏽👋🏽👋🏽"),
        ("{{ nothing | truncate: 5 }}", ""),
        ("{{ 12345678 | truncate: 5 }}", "12..."),
    ])
    func truncatesToAnExactLength(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    @Test(arguments: 0...12)
    func truncateNeverExceedsItsLengthWhenTheEllipsisFits(_ length: Int) throws {
        let output = try liquid("{{ 'Olá, você está aí? 👋🏽' | truncate: \(length), '…' }}")
        #expect(output.count <= max(length, 1))
        if length >= 1 { #expect(output.hasSuffix("…")) }
    }

    // MARK: - Arrays

    @Test(arguments: [
        ("{{ list | join }}", "a b c"),
        ("{{ list | join: ', ' }}", "a, b, c"),
        ("{{ numbers | join: '+' }}", "1+2+3"),
        ("{{ name | join: ',' }}", "Ana"),
        ("{{ list | first }}{{ list | last }}", "ac"),
        ("{{ name | first }}{{ name | last }}", "Aa"),
        ("{{ empty_list | first }}", ""),
        ("{{ list | size }}", "3"),
        ("{{ accented | size }}", "10"),
        ("{{ emoji | size }}", "5"),
        ("{{ empty_object | size }}", "0"),
        ("{{ zero | size }}", "0"),
        ("{{ list | reverse | join }}", "c b a"),
        ("{{ 'a,b,,c,,' | split: ',' | join: '|' }}", "a|b||c"),
        ("{{ '  a  b ' | split: ' ' | join: '|' }}", "a|b"),
        ("{{ 'abc' | split: '' | join: '|' }}", "a|b|c"),
        ("{{ 'a::b' | split: '::' | last }}", "b"),
        ("{{ 'a,b' | split: ',' | size }}", "2"),
        ("{% assign parts = 'x y z' | split: ' ' %}{{ parts[1] }}", "y"),
    ])
    func handlesArrays(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    // MARK: - Numbers

    @Test(arguments: [
        ("{{ 4 | plus: 2 }}", "6"),
        ("{{ 4 | plus: 2.0 }}", "6.0"),
        ("{{ '4' | plus: '2' }}", "6"),
        ("{{ '4.5' | plus: 1 }}", "5.5"),
        ("{{ 'abc' | plus: 1 }}", "1"),
        ("{{ '12abc' | plus: 1 }}", "13"),
        ("{{ 4 | minus: 6 }}", "-2"),
        ("{{ 3 | times: 2 }}", "6"),
        ("{{ 3 | times: 0.5 }}", "1.5"),
        ("{{ 7 | divided_by: 2 }}", "3"),
        ("{{ -7 | divided_by: 2 }}", "-4"),
        ("{{ 7 | divided_by: 2.0 }}", "3.5"),
        ("{{ 7.0 | divided_by: 2 }}", "3.5"),
        ("{{ 7 | divided_by: 0 }}", ""),
        ("{{ 7.5 | divided_by: 0 }}", ""),
        ("{{ 7 | modulo: 3 }}", "1"),
        ("{{ -7 | modulo: 3 }}", "2"),
        ("{{ 7 | modulo: 0 }}", ""),
        ("{{ -4.5 | abs }}", "4.5"),
        ("{{ -4 | abs }}", "4"),
        ("{{ 4.2 | ceil }}", "5"),
        ("{{ 4.8 | floor }}", "4"),
        ("{{ 4.5 | round }}", "5"),
        ("{{ 3.14159 | round: 2 }}", "3.14"),
        ("{{ '2.7' | round }}", "3"),
        ("{{ nothing | plus: 1 }}", "1"),
        ("{{ missing | times: 3 }}", "0"),
    ])
    func doesArithmetic(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    // MARK: - nil inputs

    @Test(arguments: LiquidFilterTests.nilCases)
    func filtersOnNilReturnEmpties(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    static let nilCases: [(String, String)] = [
        ("upcase", ""), ("downcase", ""), ("capitalize", ""), ("strip", ""), ("lstrip", ""), ("rstrip", ""),
        ("escape", ""), ("url_encode", ""), ("truncate: 3", ""), ("truncatewords: 3", ""),
        ("append: 'x'", "x"), ("prepend: 'x'", "x"), ("replace: 'a', 'b'", ""), ("replace_first: 'a', 'b'", ""),
        ("remove: 'a'", ""), ("remove_first: 'a'", ""), ("size", "0"), ("join: ','", ""), ("first", ""),
        ("last", ""), ("reverse", ""), ("split: ','", ""), ("split: ',' | size", "0"), ("plus: 2", "2"),
        ("minus: 2", "-2"), ("times: 2", "0"), ("divided_by: 2", "0"), ("modulo: 2", "0"), ("abs", "0"),
        ("ceil", "0"), ("floor", "0"), ("round", "0"), ("default: 'd'", "d"),
    ].map { ("{{ nothing | \($0.0) }}", $0.1) }

    @Test func everyFilterIsCoveredByTheNilTable() {
        let covered = Set(Self.nilCases.map { $0.0.split(separator: "|")[1].split(separator: ":")[0].trimmingSpaces })
        #expect(covered.count == 32)
    }

    @Test func filtersChain() throws {
        try expectRender("{{ '  ana  ' | strip | capitalize | append: '!' | prepend: '¡' }}", "¡Ana!")
        try expectRender("{{ list | join: '' | upcase | size }}", "3")
    }

    @Test func filterArgumentsCanBeVariables() throws {
        let context: JSONObject = ["n": 3, "suffix": "…", "glue": "/"]
        #expect(try liquid("{{ 'abcdef' | truncate: n, suffix }}", context) == "ab…")
        #expect(try liquid("{{ 'a b' | split: ' ' | join: glue }}", context) == "a/b")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
