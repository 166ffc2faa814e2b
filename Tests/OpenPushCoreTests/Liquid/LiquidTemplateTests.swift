import Testing
import OpenPushCore

/// Parses and renders `source`; shared by the Liquid test suites.
func liquid(_ source: String, _ context: JSONObject = [:]) throws -> String {
    try LiquidTemplate(parsing: source).render(context).text
}

@Suite struct LiquidTemplateTests {
    static let pushContext: JSONObject = [
        "first_name": "Ana",
        "subscription": ["language": "pt"],
        "user": ["external_id": "u-1"],
    ]

    @Test func rendersARealisticPush() throws {
        let headings = try LiquidTemplate(parsing: #"Olá {{ first_name | default: "there" }}!"#)
        #expect(headings.render(Self.pushContext).text == "Olá Ana!")
        #expect(headings.render([:]).text == "Olá there!")
        #expect(headings.render(["first_name": ""]).text == "Olá there!")

        let contents = try LiquidTemplate(parsing: """
            {%- if subscription.language == "pt" -%}
              Seu pedido chegou, {{ first_name | upcase }}.
            {%- else -%}
              Your order is here, {{ first_name | default: "friend" }}.
            {%- endif -%}
            """)
        #expect(contents.render(Self.pushContext).text == "Seu pedido chegou, ANA.")
        #expect(contents.render(["subscription": ["language": "en"]]).text == "Your order is here, friend.")
        #expect(contents.render([:]).text == "Your order is here, friend.")

        let url = try LiquidTemplate(parsing: "app://orders?user={{ user.external_id | url_encode }}")
        #expect(url.render(Self.pushContext).text == "app://orders?user=u-1")
        #expect(url.render(["user": ["external_id": "a b&c"]]).text == "app://orders?user=a+b%26c")
    }

    @Test func parsesOnceAndRendersMany() throws {
        let template = try LiquidTemplate(parsing: "{% assign n = n | plus: 1 %}{{ n }}")
        #expect(template.render([:]).text == "1")
        #expect(template.render(["n": 41]).text == "42")
        // Assigns do not leak from one render into the next.
        #expect(template.render([:]).text == "1")
    }

    @Test func validatesWithoutRendering() {
        #expect(LiquidTemplate.validate("Hi {{ name | upcase }}") == nil)
        #expect(LiquidTemplate.validate("{% if x %}") == LiquidError("unclosed tag 'if'"))
        #expect(LiquidTemplate.validate("{{ x | bar }}")?.message == "unknown filter 'bar'")
        #expect(LiquidError("x").description == "x")
    }

    @Test func plainTextPassesThrough() throws {
        #expect(try liquid("") == "")
        #expect(try liquid("no tags at all, { } % }} %}") == "no tags at all, { } % }} %}")
        #expect(try liquid("Olá, 世界 👋🏽") == "Olá, 世界 👋🏽")
    }

    // MARK: - Runaway templates

    @Test func stopsAtTheOutputCap() throws {
        let output = try liquid("{% for i in (1..100000) %}0123456789{% endfor %}")
        #expect(output.utf8.count <= LiquidTemplate.maximumOutputBytes)
        #expect(output.utf8.count > LiquidTemplate.maximumOutputBytes - 10)
        #expect(output.hasPrefix("01234567890123456789"))
    }

    @Test func cutsTheOutputOnACharacterBoundary() throws {
        let output = try liquid("{% for i in (1..9000) %}👋🏽é{% endfor %}")
        #expect(output.utf8.count <= LiquidTemplate.maximumOutputBytes)
        #expect(output.last == "é" || output.last == "👋🏽")
        #expect(String(decoding: Array(output.utf8), as: UTF8.self) == output)
    }

    @Test func stopsALoopThatRunsAway() throws {
        let output = try LiquidTemplate(parsing: "{% for i in (1..1000000000) %}{% endfor %}done").render([:])
        #expect(output.text == "" && output.exceededBudget)
        let nested = try LiquidTemplate(parsing: """
            {%- for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}{% endfor %}{% endfor %}{% endfor -%}
            done
            """).render([:])
        #expect(nested.text == "" && nested.exceededBudget)
        let count = try LiquidTemplate(parsing: "{% for i in (1..100000) %}x{% endfor %}").render([:])
        #expect(count.exceededBudget)
        #expect(count.text.count < 100000)
    }

    @Test func stopsAStringThatDoublesItself() throws {
        let output = try LiquidTemplate(parsing: """
            {%- assign s = "ab" -%}
            {%- for i in (1..100) %}{% assign s = s | append: s %}{% endfor -%}
            {{ s | size }}
            """).render([:])
        #expect(output.text == "" && output.exceededBudget)
        let captured = try LiquidTemplate(parsing: """
            {%- assign s = "ab" -%}
            {%- for i in (1..100) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor -%}
            {{ s | size }}
            """).render([:])
        #expect(captured.text == "" && captured.exceededBudget)
        let replaced = try liquid(#"{% assign s = "aaaaaaaaaa" | replace: "a", "bbbbbbbbbb" %}{{ s | size }}"#)
        #expect(replaced == "100")
    }

    @Test func rangesAreNotBuiltInMemory() throws {
        #expect(try liquid("{% for i in (1..2000000000) limit: 3 %}{{ i }}{% endfor %}") == "123")
        #expect(try liquid("{% for i in (1..2000000000) reversed limit: 2 %}{{ i }},{% endfor %}")
            == "2,1,")
    }

    @Test func deepNestingIsAParseErrorNotACrash() throws {
        let deepIf = String(repeating: "{% if true %}", count: 500) + String(repeating: "{% endif %}", count: 500)
        #expect(LiquidTemplate.validate(deepIf)?.message == "tags nested too deeply")
        let deepBrackets = "{{ a" + String(repeating: "[a", count: 500) + String(repeating: "]", count: 500) + " }}"
        #expect(LiquidTemplate.validate(deepBrackets)?.message == "expression nested too deeply")
        let longChain = "{% if " + Array(repeating: "false", count: 50_000).joined(separator: " or ") + " or true %}y{% endif %}"
        #expect(try liquid(longChain) == "y")
    }

    @Test func neverCrashesOnOddInputs() throws {
        let context: JSONObject = [
            "n": 9_223_372_036_854_775_807, "m": -9_223_372_036_854_775_808, "d": 1e308, "a": [1, [2, [3]]],
            "o": ["k": ["x": nil]], "s": "",
        ]
        let sources = [
            "{{ n | plus: 1 }}", "{{ m | minus: 1 }}", "{{ n | times: n }}", "{{ m | divided_by: -1 }}",
            "{{ m | modulo: -1 }}", "{{ m | abs }}", "{{ d | times: d }}", "{{ d | round }}", "{{ d | ceil }}",
            "{{ a }}", "{{ o }}", "{{ o.k.x.y.z }}", "{{ a[99] }}", "{{ a[-99] }}", "{{ s.first }}",
            "{{ s | truncate: -5 }}", "{{ s | split: '' | join }}", "{{ n | truncate: n }}",
            "{% for x in (m..n) limit: 2 %}{{ x }}{% endfor %}", "{% for x in a offset: n %}{% endfor %}",
            "{% for x in a limit: m %}{% endfor %}", "{{ 'x' | round: n }}",
        ]
        for source in sources {
            _ = try liquid(source, context)
        }
        #expect(try liquid("{{ n | plus: 1 }}", context) == "9.223372036854776e+18")
        #expect(try liquid("{{ d | round }}", context) == "1.0e+308")
    }
}

extension LiquidTemplateTests {
    @Test func substringSearchStaysLinear() throws {
        let haystack = String(repeating: "a", count: 200_000)
        let needle = String(repeating: "a", count: 20_000) + "b"
        let context: JSONObject = ["h": .string(haystack), "n": .string(needle)]
        let start = ContinuousClock.now
        #expect(try liquid("{% if h contains n %}y{% else %}n{% endif %}", context) == "n")
        #expect(try liquid("{% assign r = h | remove: n %}{% if r == h %}same{% endif %}", context) == "same")
        #expect(try liquid("{{ h | split: n | size }}", context) == "1")
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
