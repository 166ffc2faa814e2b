import Testing
import OpenPushCore

@Suite struct LiquidTagTests {
    static let context: JSONObject = [
        "name": "Ana", "items": ["a", "b", "c", "d", "e"], "numbers": [3, 1, 2], "empty_list": [],
        "empty_object": [:], "user": ["plan": "pro", "age": 30, "tags": ["vip", "beta"]],
        "zero": 0, "empty_text": "", "spaces": " \n", "no": false, "yes": true, "nothing": nil,
        "prices": ["tea": 2.5, "cake": 4],
    ]

    func expectRender(
        _ source: String, _ expected: String, _ context: JSONObject = LiquidTagTests.context,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try liquid(source, context) == expected, sourceLocation: sourceLocation)
    }

    // MARK: - Truthiness

    @Test(arguments: [
        ("yes", true), ("no", false), ("nothing", false), ("missing", false), ("zero", true),
        ("empty_text", true), ("spaces", true), ("empty_list", true), ("empty_object", true), ("name", true),
        ("items", true), ("user", true), ("0", true), ("''", true), ("true", true), ("false", false),
        ("nil", false), ("null", false), ("empty", true), ("blank", true), ("user.missing", false),
    ])
    func onlyFalseAndNilAreFalsy(_ expression: String, _ truthy: Bool) throws {
        try expectRender("{% if \(expression) %}T{% else %}F{% endif %}", truthy ? "T" : "F")
        try expectRender("{% unless \(expression) %}T{% else %}F{% endunless %}", truthy ? "F" : "T")
    }

    // MARK: - if / unless

    @Test func ifElsifElseChoosesTheFirstTrueBranch() throws {
        let source = "{% if n == 1 %}one{% elsif n == 2 %}two{% elsif n > 2 %}many{% else %}none{% endif %}"
        try expectRender(source, "one", ["n": 1])
        try expectRender(source, "two", ["n": 2])
        try expectRender(source, "many", ["n": 7])
        try expectRender(source, "none", ["n": 0])
        try expectRender(source, "none", [:])
        try expectRender("{% if no %}x{% endif %}", "")
        try expectRender("{% unless no %}x{% elsif yes %}y{% endunless %}", "x")
        try expectRender("{% unless yes %}x{% elsif yes %}y{% endunless %}", "y")
    }

    @Test(arguments: [
        ("1 == 1", true), ("1 == 1.0", true), ("1 == '1'", false), ("'a' == 'a'", true), ("'a' != 'b'", true),
        ("'a' <> 'a'", false), ("1 < 2", true), ("2 <= 2", true), ("3 > 2.5", true), ("2 >= 3", false),
        ("'abc' < 'abd'", true), ("'b' > 'a'", true), ("1 < 'a'", false), ("'a' > 1", false),
        ("nothing < 1", false), ("nothing == nil", true), ("missing == nothing", true), ("missing != nil", false),
        ("user.age > 18", true), ("user.age == 30.0", true), ("items == items", true), ("user.plan == 'pro'", true),
        ("numbers == numbers", true), ("yes == true", true), ("no == false", true), ("no == nil", false),
        ("zero == false", false), ("name == 'ana'", false),
    ])
    func compares(_ condition: String, _ expected: Bool) throws {
        try expectRender("{% if \(condition) %}T{% else %}F{% endif %}", expected ? "T" : "F")
    }

    @Test(arguments: [
        ("name contains 'An'", true), ("name contains 'an'", false), ("name contains ''", true),
        ("items contains 'c'", true), ("items contains 'z'", false), ("numbers contains 2", true),
        ("numbers contains 2.0", true), ("numbers contains '2'", false), ("user.tags contains 'vip'", true),
        ("user contains 'plan'", true), ("user contains 'nope'", false), ("nothing contains 'a'", false),
        ("name contains nothing", false), ("zero contains 0", false), ("'café crème' contains 'crè'", true),
        ("'12345' contains 23", true),
    ])
    func contains(_ condition: String, _ expected: Bool) throws {
        try expectRender("{% if \(condition) %}T{% else %}F{% endif %}", expected ? "T" : "F")
    }

    @Test(arguments: [
        ("empty_text == empty", true), ("empty_list == empty", true), ("empty_object == empty", true),
        ("empty == empty_list", true), ("items == empty", false), ("spaces == empty", false),
        ("nothing == empty", false), ("missing == empty", false), ("zero == empty", false),
        ("empty_list != empty", false), ("items != empty", true),
        ("nothing == blank", true), ("no == blank", true), ("spaces == blank", true), ("empty_text == blank", true),
        ("empty_list == blank", true), ("empty_object == blank", true), ("name == blank", false),
        ("zero == blank", false), ("yes == blank", false), ("blank == missing", true), ("name != blank", true),
        ("empty_text > empty", false),
    ])
    func comparesWithEmptyAndBlank(_ condition: String, _ expected: Bool) throws {
        try expectRender("{% if \(condition) %}T{% else %}F{% endif %}", expected ? "T" : "F")
    }

    @Test(arguments: [
        // Evaluated from the right, without precedence.
        ("true or false and false", true),  // true or (false and false)
        ("false and false or true", false),  // false and (false or true)
        ("true and false or true", true),  // true and (false or true)
        ("false or true and false", false),  // false or (true and false)
        ("true and true and true", true), ("true and true and false", false), ("false or false or true", true),
        ("false or false or false", false), ("1 == 1 and 2 > 1", true), ("1 == 2 or name == 'Ana'", true),
        ("nothing or zero", true), ("nothing and zero", false),
        ("false and true or true and true", false),  // false and (true or (true and true))
        ("true or true and false or false", true),  // true or (true and (false or false))
    ])
    func andOrGroupFromTheRight(_ condition: String, _ expected: Bool) throws {
        try expectRender("{% if \(condition) %}T{% else %}F{% endif %}", expected ? "T" : "F")
    }

    // MARK: - case / when

    @Test(arguments: [
        ("pro", "PRO"), ("free", "FREE"), ("trial", "FREE"), ("team", "TEAM"), ("other", "?"),
    ])
    func caseWhen(_ plan: String, _ expected: String) throws {
        let source = """
            {%- case plan -%}
              {%- when "pro" -%}PRO
              {%- when "free", "trial" -%}FREE
              {%- when "team" or "enterprise" -%}TEAM
              {%- else -%}?
            {%- endcase -%}
            """
        try expectRender(source, expected, ["plan": .string(plan)])
    }

    @Test func caseWhenCornerCases() throws {
        try expectRender("{% case n %}{% when 1 %}one{% when 2 %}two{% endcase %}", "two", ["n": 2])
        try expectRender("{% case n %}{% when 1 %}one{% endcase %}", "", ["n": 2])
        try expectRender("{% case n %}{% when 1 %}one{% endcase %}", "one", ["n": 1.0])
        try expectRender("{% case n %}{% when '1' %}one{% else %}not{% endcase %}", "not", ["n": 1])
        try expectRender("{% case missing %}{% when nil %}none{% endcase %}", "none", [:])
        try expectRender("{% case list %}{% when empty %}empty{% endcase %}", "empty", ["list": []])
        // Every matching `when` renders, as in Liquid.
        try expectRender("{% case 'a' %}{% when 'a' %}1{% when 'b', 'a' %}2{% else %}3{% endcase %}", "12")
        // Text before the first `when` is ignored.
        try expectRender("{% case 'a' %} ignored {% when 'a' %}A{% endcase %}", "A")
        try expectRender("{% case x %}{% else %}default{% endcase %}", "default")
        try expectRender("{% case x %}{% endcase %}", "")
        try expectRender("{% case user.plan %}{% when other %}match{% endcase %}", "match", [
            "user": ["plan": "pro"], "other": "pro",
        ])
    }

    // MARK: - for

    @Test(arguments: [
        ("{% for i in items %}{{ i }}{% endfor %}", "abcde"),
        ("{% for i in items limit: 2 %}{{ i }}{% endfor %}", "ab"),
        ("{% for i in items offset: 3 %}{{ i }}{% endfor %}", "de"),
        ("{% for i in items offset: 1 limit: 2 %}{{ i }}{% endfor %}", "bc"),
        ("{% for i in items limit: 2 offset: 1 %}{{ i }}{% endfor %}", "bc"),
        ("{% for i in items limit:2 offset:1 %}{{ i }}{% endfor %}", "bc"),
        ("{% for i in items, limit: 2 %}{{ i }}{% endfor %}", "ab"),
        ("{% for i in items reversed %}{{ i }}{% endfor %}", "edcba"),
        // Liquid slices first, then reverses.
        ("{% for i in items reversed limit: 2 %}{{ i }}{% endfor %}", "ba"),
        ("{% for i in items reversed offset: 1 limit: 3 %}{{ i }}{% endfor %}", "dcb"),
        ("{% for i in items limit: 0 %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in items limit: -1 %}{{ i }}{% endfor %}", ""),
        ("{% for i in items offset: 10 %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in items offset: -2 limit: 3 %}{{ i }}{% endfor %}", "a"),
        ("{% for i in items limit: '2' %}{{ i }}{% endfor %}", "ab"),
        ("{% for i in items limit: n %}{{ i }}{% endfor %}", ""),
        ("{% for i in (1..5) %}{{ i }}{% endfor %}", "12345"),
        ("{% for i in (3..1) %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in (1..n) %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in (-1..1) %}{{ i }},{% endfor %}", "-1,0,1,"),
        ("{% for i in ('2'..'4') %}{{ i }}{% endfor %}", "234"),
        ("{% for i in (1..5) reversed offset: 1 limit: 2 %}{{ i }}{% endfor %}", "32"),
        ("{% for i in empty_list %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in missing %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in nothing %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in zero %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in empty_text %}{{ i }}{% else %}none{% endfor %}", "none"),
        ("{% for i in name %}[{{ i }}]{% endfor %}", "[Ana]"),
        ("{% for pair in prices %}{{ pair[0] }}={{ pair[1] }};{% endfor %}", "tea=2.5;cake=4;"),
        ("{% for pair in prices %}{{ pair.first }}{% endfor %}", "teacake"),
        ("{% for i in items %}{% endfor %}{{ i }}", ""),
    ])
    func iterates(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    @Test func exposesForloop() throws {
        let source = """
            {%- for i in items limit: 3 -%}
            {{ forloop.index }}{{ forloop.index0 }}{{ forloop.rindex }}{{ forloop.rindex0 }}\
            {{ forloop.first }}{{ forloop.last }}{{ forloop.length }}{% unless forloop.last %},{% endunless %}
            {%- endfor -%}
            """
        try expectRender(source, "1032truefalse3,2121falsefalse3,3210falsetrue3")
        try expectRender("{% for i in items reversed limit: 2 %}{{ i }}{{ forloop.index }}{% endfor %}", "b1a2")
        try expectRender("{{ forloop.index }}", "")
    }

    @Test func nestedLoopsSeeTheirParent() throws {
        let source = """
            {%- for a in (1..2) -%}
            {%- for b in (1..2) -%}
            {{ forloop.parentloop.index }}.{{ forloop.index }}{% if forloop.parentloop.last and forloop.last %}!{% endif %} {% endfor -%}
            {%- endfor -%}
            """
        try expectRender(source, "1.1 1.2 2.1 2.2! ")
        try expectRender("{% for a in (1..2) %}{% for b in (1..2) %}{{ a }}{{ b }} {% endfor %}{% endfor %}", "11 12 21 22 ")
    }

    @Test(arguments: [
        ("{% for i in (1..6) %}{% if i == 4 %}{% break %}{% endif %}{{ i }}{% endfor %}", "123"),
        ("{% for i in (1..6) %}{% if i == 4 %}{% continue %}{% endif %}{{ i }}{% endfor %}", "12356"),
        ("{% for i in (1..6) %}{% unless i == 2 or i == 5 %}{% continue %}{% endunless %}{{ i }}{% endfor %}", "25"),
        ("{% for i in (1..3) %}{{ i }}{% break %}x{% endfor %}after", "1after"),
        ("{% for i in (1..3) %}{{ i }}{% continue %}x{% endfor %}", "123"),
        // `break` leaves only the innermost loop.
        ("{% for a in (1..2) %}{% for b in (1..3) %}{% if b == 2 %}{% break %}{% endif %}{{ a }}{{ b }} {% endfor %}{% endfor %}", "11 21 "),
        ("{% for i in (1..3) %}{% case i %}{% when 2 %}{% break %}{% endcase %}{{ i }}{% endfor %}", "1"),
        ("{% for i in (1..3) %}{% capture c %}{{ i }}{% break %}{% endcapture %}{% endfor %}{{ c }}", "1"),
    ])
    func breaksAndContinues(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    @Test func breakOutsideALoopStopsRendering() throws {
        try expectRender("a{% break %}b", "a")
        try expectRender("a{% if true %}{% continue %}{% endif %}b", "a")
    }

    // MARK: - assign / capture

    @Test(arguments: [
        ("{% assign x = 'hi' %}{{ x }}", "hi"),
        ("{% assign x = name | upcase | append: '!' %}{{ x }}", "ANA!"),
        ("{% assign x = 5 %}{{ x | plus: 1 }}", "6"),
        ("{% assign x = items %}{{ x.size }}", "5"),
        ("{% assign x = user.plan %}{{ x }}", "pro"),
        ("{% assign name = 'Bo' %}{{ name }}", "Bo"),
        ("{{ x }}{% assign x = 1 %}{{ x }}", "1"),
        ("{% assign x=1 %}{{ x }}", "1"),
        ("{% assign my-var = 2 %}{{ my-var }}", "2"),
        ("{% assign x = nothing %}{{ x | default: 'd' }}", "d"),
        // Assigns made in a loop survive it; the loop variable does not.
        ("{% for i in (1..3) %}{% assign last = i %}{% endfor %}{{ last }}{{ i }}", "3"),
        ("{% if true %}{% assign x = 'in' %}{% endif %}{{ x }}", "in"),
        ("{% assign s = 0 %}{% for i in numbers %}{% assign s = s | plus: i %}{% endfor %}{{ s }}", "6"),
    ])
    func assigns(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    @Test(arguments: [
        ("{% capture g %}Hello {{ name }}!{% endcapture %}[{{ g }}]", "[Hello Ana!]"),
        ("{% capture g %}{% endcapture %}{{ g | default: 'empty' }}", "empty"),
        ("{% capture 'g' %}x{% endcapture %}{{ g }}", "x"),
        ("{% capture list %}{% for i in items %}{{ i }}{% unless forloop.last %},{% endunless %}{% endfor %}{% endcapture %}{{ list | upcase }}", "A,B,C,D,E"),
        ("{% capture c %}{{ zero }}{% endcapture %}{% if c == '0' %}string{% endif %}", "string"),
        ("{% capture name %}Zoe{% endcapture %}{{ name }}", "Zoe"),
        ("before{% capture c %}hidden{% endcapture %}after", "beforeafter"),
    ])
    func captures(_ source: String, _ expected: String) throws {
        try expectRender(source, expected)
    }

    // MARK: - Nesting

    @Test func nestsTags() throws {
        let source = """
            {%- for user in users -%}
              {%- if user.vip -%}
                {%- case user.lang -%}
                  {%- when "pt" -%}Olá
                  {%- when "es" -%}Hola
                  {%- else -%}Hi
                {%- endcase %} {{ user.name | default: "friend" }}
                {%- unless forloop.last %}; {% endunless -%}
              {%- else -%}
                {%- capture skipped %}{{ skipped }}{{ user.name }},{% endcapture -%}
                {%- unless forloop.last %}; {% endunless -%}
              {%- endif -%}
            {%- endfor %} (skipped: {{ skipped }})
            """
        let context: JSONObject = [
            "users": [
                ["name": "Ana", "vip": true, "lang": "pt"],
                ["name": "Luis", "vip": false],
                ["vip": true, "lang": "es"],
                ["name": "Kim", "vip": true],
            ]
        ]
        try expectRender(source, "Olá Ana; ; Hola friend; Hi Kim (skipped: Luis,)", context)
    }
}
