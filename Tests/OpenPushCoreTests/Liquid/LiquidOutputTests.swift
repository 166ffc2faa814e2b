import Testing
import OpenPushCore

@Suite struct LiquidOutputTests {
    static let context: JSONObject = [
        "name": "Ana",
        "user": ["external_id": "u-1", "tags": ["first name": "Ana", "vip": true], "size": "XL"],
        "items": ["a", "b", "c"],
        "nested": [["x": 1], ["x": 2]],
        "count": 3, "price": 3.0, "ratio": 0.25, "zero": 0, "no": false, "nothing": nil, "blank_text": "  ",
        "empty_list": [], "word": "héllo", "key": "first name",
    ]

    @Test(arguments: [
        ("{{ name }}", "Ana"),
        ("{{name}}", "Ana"),
        ("{{   name   }}", "Ana"),
        ("{{ user.external_id }}", "u-1"),
        ("{{ user.tags['first name'] }}", "Ana"),
        (#"{{ user.tags["first name"] }}"#, "Ana"),
        ("{{ user.tags[key] }}", "Ana"),
        ("{{ ['name'] }}", "Ana"),
        ("{{ items[0] }}{{ items[2] }}", "ac"),
        ("{{ items[-1] }}", "c"),
        ("{{ items[3] }}", ""),
        ("{{ items[count] }}", ""),
        ("{{ items[zero] }}", "a"),
        ("{{ nested[1].x }}", "2"),
        ("{{ nested.first.x }}", "1"),
        ("{{ items.size }}", "3"),
        ("{{ items.first }}-{{ items.last }}", "a-c"),
        ("{{ word.size }}", "5"),
        ("{{ word.first }}{{ word.last }}", "ho"),
        // An object's own key wins over the `size` property.
        ("{{ user.size }}", "XL"),
        ("{{ user.tags.size }}", "2"),
        ("{{ items['size'] }}", ""),
        ("{{ user.tags.vip }}", "true"),
    ])
    func looksUpVariables(_ source: String, _ expected: String) throws {
        #expect(try liquid(source, Self.context) == expected)
    }

    @Test(arguments: [
        "{{ missing }}", "{{ missing.deeper.still }}", "{{ user.missing }}", "{{ name.nope }}",
        "{{ items.nope }}", "{{ count.size }}", "{{ nothing }}", "{{ nothing.size }}", "{{ missing[0] }}",
        "{{ items['0'] }}", "{{ name[0] }}", "{{ [missing] }}", "{{ }}", "{{ empty }}", "{{ blank }}",
        "{{ empty_list }}",
    ])
    func missingValuesRenderEmpty(_ source: String) throws {
        #expect(try liquid(source, Self.context) == "")
    }

    @Test(arguments: [
        ("{{ 'single' }}", "single"),
        (#"{{ "double" }}"#, "double"),
        (#"{{ "it's" }}"#, "it's"),
        ("{{ 42 }}", "42"),
        ("{{ -7 }}", "-7"),
        ("{{ 3.0 }}", "3.0"),
        ("{{ 2.50 }}", "2.5"),
        ("{{ -0.5 }}", "-0.5"),
        ("{{ true }}{{ false }}", "truefalse"),
        ("{{ nil }}{{ null }}", ""),
        ("{{ (1..3) }}", "1..3"),
        ("{{ (1..count) }}", "1..3"),
    ])
    func rendersLiterals(_ source: String, _ expected: String) throws {
        #expect(try liquid(source, Self.context) == expected)
    }

    @Test(arguments: [
        ("{{ count }}", "3"),
        ("{{ price }}", "3.0"),
        ("{{ ratio }}", "0.25"),
        ("{{ zero }}", "0"),
        ("{{ no }}", "false"),
        ("{{ items }}", "abc"),
        ("{{ nested }}", #"{"x":1}{"x":2}"#),
        ("{{ user.tags }}", #"{"first name":"Ana","vip":true}"#),
        ("{{ big }}", "1.0e+20"),
        ("{{ small }}", "1.0e-05"),
        ("{{ huge_int }}", "9007199254740993"),
    ])
    func rendersValuesLikeLiquid(_ source: String, _ expected: String) throws {
        var context = Self.context
        context["big"] = .double(1e20)
        context["small"] = .double(0.00001)
        context["huge_int"] = .int(9_007_199_254_740_993)
        #expect(try liquid(source, context) == expected)
    }

    @Test(arguments: [
        ("a  {{- name }}", "aAna"),
        ("{{ name -}}  \n b", "Anab"),
        ("a \n {{- name -}} \n b", "aAnab"),
        ("a \n {%- assign x = 1 -%} \n b", "ab"),
        ("a \n {% assign x = 1 %} \n b", "a \n  \n b"),
        ("[ {%- if true -%} \n yes \n {%- endif -%} ]", "[yes]"),
        ("{%- for i in items -%}\n  {{ i }}\n{%- endfor -%}", "abc"),
        ("x\t\r\n {{- '' -}} \t\r\n y", "xy"),
        ("{{- name -}}", "Ana"),
        ("{{-name-}}", "Ana"),
        ("  {%- comment -%} c {%- endcomment -%}  x", "x"),
        // Trimming reaches only the neighbouring text, even across a comment.
        ("a {% comment %}c{% endcomment %} {{- name }}", "a Ana"),
        ("{{ name -}}{{ name }} b", "AnaAna b"),
        ("a {% # note %} {{- name }}", "a Ana"),
    ])
    func controlsWhitespace(_ source: String, _ expected: String) throws {
        #expect(try liquid(source, Self.context) == expected)
    }

    @Test(arguments: [
        ("{% raw %}{{ name }}{% endraw %}", "{{ name }}"),
        ("{% raw %}{% if %}{% for %}{{{% endraw %}", "{% if %}{% for %}{{"),
        ("a{%raw%} {{x}} {%endraw%}b", "a {{x}} b"),
        ("a {%- raw -%} {{x}} {%- endraw -%} b", "a{{x}}b"),
        ("{% raw %}{% endraw %}", ""),
        ("{% raw %}{% raw %}{% endraw %}", "{% raw %}"),
    ])
    func rawIsNotParsed(_ source: String, _ expected: String) throws {
        #expect(try liquid(source, Self.context) == expected)
    }

    @Test(arguments: [
        ("a{% comment %}{{ name }}{% endcomment %}b", "ab"),
        ("a{% comment %}{% if %}{% bogus %}{{ x | nope }}{% endcomment %}b", "ab"),
        ("a{% comment %}x{% comment %}y{% endcomment %}z{% endcomment %}b", "ab"),
        ("a{% # an inline comment %}b", "ab"),
        ("a{%# another %}b", "ab"),
    ])
    func commentsRenderNothing(_ source: String, _ expected: String) throws {
        #expect(try liquid(source, Self.context) == expected)
    }

    @Test func echoIsOutputAsATag() throws {
        #expect(try liquid("{% echo name | upcase %}", Self.context) == "ANA")
    }
}
