import Testing
import OpenPushCore

/// `LiquidTemplate.variables`: the context names a render can read, so that recipients equal on
/// them can share one rendering.
@Suite struct LiquidVariablesTests {
    static func variables(_ source: String) throws -> Set<String>? {
        try LiquidTemplate(parsing: source).variables
    }

    @Test func plainTextReadsNothing() throws {
        #expect(try Self.variables("Your order is on its way") == [])
    }

    @Test(arguments: [
        ("{{ first_name | default: \"there\" }}", ["first_name"]),
        ("{{ subscription.language }} {{ user.aliases.crm }}", ["subscription", "user"]),
        ("{{ a | append: b | truncate: size | default: fallback, allow_false: strict }}", ["a", "b", "size", "fallback", "strict"]),
        ("{% if vip == \"yes\" and tier > floor %}x{% elsif not_vip %}y{% else %}{{ z }}{% endif %}",
         ["vip", "tier", "floor", "not_vip", "z"]),
        ("{% unless muted %}{{ greeting }}{% endunless %}", ["muted", "greeting"]),
        ("{% case level %}{% when top, other %}{{ a }}{% else %}{{ b }}{% endcase %}", ["level", "top", "other", "a", "b"]),
        ("{% for x in items limit: n offset: m %}{{ x }}{% else %}{{ none }}{% endfor %}", ["items", "n", "m", "x", "none"]),
        ("{% assign s = first | upcase %}{% capture c %}{{ second }}{% endcapture %}{{ s }}{{ c }}",
         ["first", "s", "second", "c"]),
        ("{{ [\"first name\"] }} {{ order[\"id\"] }} {{ list[index].title }}", ["first name", "order", "list", "index"]),
        ("{% for i in (1..count) %}{{ i }}{% endfor %}", ["i", "count"]),
    ] as [(String, Set<String>)])
    func namesEveryContextNameItCanRead(source: String, expected: Set<String>) throws {
        #expect(try Self.variables(source) == expected)
    }

    @Test(arguments: ["{{ [key] }}", "{% if [flag] %}x{% endif %}", "{{ a | append: [b] }}"])
    func aComputedNameCouldBeAnyName(source: String) throws {
        #expect(try Self.variables(source) == nil)
    }

    @Test func aLanguageMapReadsWhatAnyOfItsTextsReads() {
        #expect(LocalizedTemplates(["en": "Hi {{ name }}", "pt": "Olá {{ nome }}", "fr": "Salut"]).variables == ["name", "nome"])
        #expect(LocalizedTemplates(["en": "Hi {{ name }}", "pt": "{{ [k] }}"]).variables == nil)
        #expect(LocalizedTemplates(nil).variables == [])
    }
}
