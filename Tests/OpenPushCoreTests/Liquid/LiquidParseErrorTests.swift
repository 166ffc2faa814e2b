import Testing
import OpenPushCore

@Suite struct LiquidParseErrorTests {
    @Test(arguments: [
        // Unclosed blocks.
        ("{% if x %}", "unclosed tag 'if'"),
        ("{% if x %}{% else %}", "unclosed tag 'if'"),
        ("{% if x %}{% elsif y %}", "unclosed tag 'if'"),
        ("{% unless x %}", "unclosed tag 'unless'"),
        ("{% for i in x %}", "unclosed tag 'for'"),
        ("{% for i in x %}{% else %}", "unclosed tag 'for'"),
        ("{% case x %}", "unclosed tag 'case'"),
        ("{% case x %}{% when 1 %}", "unclosed tag 'case'"),
        ("{% case x %}{% else %}", "unclosed tag 'case'"),
        ("{% capture c %}", "unclosed tag 'capture'"),
        ("{% raw %}{{ x }}", "unclosed tag 'raw'"),
        ("{% comment %}x", "unclosed tag 'comment'"),
        ("{% comment %}{% comment %}{% endcomment %}", "unclosed tag 'comment'"),
        ("{% for i in x %}{% if y %}{% endfor %}", "unclosed tag 'if'"),
        ("{% if y %}{% for i in x %}{% endif %}", "unclosed tag 'for'"),
        // Closers and intermediates out of place.
        ("{% endif %}", "'endif' without 'if'"),
        ("{% endfor %}", "'endfor' without 'for'"),
        ("{% endunless %}", "'endunless' without 'unless'"),
        ("{% endcase %}", "'endcase' without 'case'"),
        ("{% endcapture %}", "'endcapture' without 'capture'"),
        ("{% endraw %}", "'endraw' without 'raw'"),
        ("{% endcomment %}", "'endcomment' without 'comment'"),
        ("{% if x %}{% endfor %}", "'endfor' without 'for'"),
        ("{% else %}", "unexpected 'else'"),
        ("{% elsif x %}", "unexpected 'elsif'"),
        ("{% when x %}", "unexpected 'when'"),
        ("{% if x %}{% else %}{% else %}{% endif %}", "unexpected 'else'"),
        ("{% if x %}{% else %}{% elsif y %}{% endif %}", "unexpected 'elsif'"),
        ("{% for i in x %}{% elsif y %}{% endfor %}", "unexpected 'elsif'"),
        ("{% for i in x %}{% else %}{% else %}{% endfor %}", "unexpected 'else'"),
        ("{% if x %}{% when 1 %}{% endif %}", "unexpected 'when'"),
        ("{% case x %}{% else %}{% when 1 %}{% endcase %}", "unexpected 'when'"),
        ("{% case x %}{% else %}{% else %}{% endcase %}", "unexpected 'else'"),
        // Unknown names.
        ("{% foo %}", "unknown tag 'foo'"),
        ("{% include 'x' %}", "unknown tag 'include'"),
        ("{% if x %}{% bar %}{% endif %}", "unknown tag 'bar'"),
        ("{{ x | bar }}", "unknown filter 'bar'"),
        ("{{ x | upcase | bar: 1 }}", "unknown filter 'bar'"),
        ("{% assign y = x | bar %}", "unknown filter 'bar'"),
        ("{{ x | Upcase }}", "unknown filter 'Upcase'"),
        ("{{ x | date: '%Y' }}", "unknown filter 'date'"),
        // Delimiters.
        ("Hi {{ name", "unterminated output '{{'"),
        ("Hi {{ name }", "unterminated output '{{'"),
        ("Hi {% if x", "unterminated tag '{%'"),
        ("{% if x }}", "unterminated tag '{%'"),
        ("{%  %}", "empty tag '{% %}'"),
        ("{%- -%}", "empty tag '{% %}'"),
        // Expressions.
        ("{{ 'abc }}", "unterminated string"),
        ("{{ x | append: \"abc }}", "unterminated string"),
        ("{{ x ! }}", "unexpected character '!'"),
        ("{{ 1abc }}", "unexpected character 'a'"),
        ("{{ é }}", "unexpected character 'é'"),
        ("{{ a - b }}", "unexpected character '-'"),
        ("{{ x y }}", "malformed output '{{ x y }}' near 'y'"),
        ("{{ x | }}", "malformed output '{{ x | }}'"),
        ("{{ | upcase }}", "malformed output '{{ | upcase }}' near '|'"),
        ("{{ x. }}", "malformed output '{{ x. }}'"),
        ("{{ x[0 }}", "malformed output '{{ x[0 }}'"),
        ("{{ (1..) }}", "malformed output '{{ (1..) }}' near ')'"),
        ("{{ (1,2) }}", "malformed output '{{ (1,2) }}' near ','"),
        ("{{ x | truncate: }}", "malformed output '{{ x | truncate: }}'"),
        ("{{ x | append }}", "wrong number of arguments for filter 'append'"),
        ("{{ x | upcase: 1 }}", "wrong number of arguments for filter 'upcase'"),
        ("{{ x | replace: 'a', 'b', 'c' }}", "wrong number of arguments for filter 'replace'"),
        ("{{ x | truncate: 1, 'a', 'b' }}", "wrong number of arguments for filter 'truncate'"),
        ("{{ x | append: 'a', allow_false: true }}", "unknown argument 'allow_false' for filter 'append'"),
        // Tag markup.
        ("{% if %}{% endif %}", "malformed tag 'if'"),
        ("{% if x == %}{% endif %}", "malformed tag 'if'"),
        ("{% if x and %}{% endif %}", "malformed tag 'if'"),
        ("{% if x y %}{% endif %}", "malformed tag 'if' near 'y'"),
        ("{% if x = 1 %}{% endif %}", "malformed tag 'if' near '='"),
        ("{% if x %}{% elsif %}{% endif %}", "malformed tag 'elsif'"),
        ("{% if x %}{% else y %}{% endif %}", "malformed tag 'else'"),
        ("{% unless %}{% endunless %}", "malformed tag 'unless'"),
        ("{% case %}{% endcase %}", "malformed tag 'case'"),
        ("{% case x %}{% when %}{% endcase %}", "malformed tag 'when'"),
        ("{% case x %}{% when 1, %}{% endcase %}", "malformed tag 'when'"),
        ("{% for %}{% endfor %}", "malformed tag 'for'"),
        ("{% for i %}{% endfor %}", "malformed tag 'for'"),
        ("{% for i of x %}{% endfor %}", "malformed tag 'for' near 'of'"),
        ("{% for i in %}{% endfor %}", "malformed tag 'for'"),
        ("{% for i in x limit %}{% endfor %}", "malformed tag 'for'"),
        ("{% for i in x sorted %}{% endfor %}", "malformed tag 'for' near 'sorted'"),
        ("{% assign %}", "malformed tag 'assign'"),
        ("{% assign x %}", "malformed tag 'assign'"),
        ("{% assign x = %}", "malformed tag 'assign'"),
        ("{% assign 1 = 2 %}", "malformed tag 'assign' near '1'"),
        ("{% assign x == 2 %}", "malformed tag 'assign' near '=='"),
        ("{% capture %}{% endcapture %}", "malformed tag 'capture'"),
        ("{% capture a b %}{% endcapture %}", "malformed tag 'capture' near 'b'"),
        ("{% break now %}", "malformed tag 'break' near 'now'"),
        ("{% echo %}", "malformed tag 'echo'"),
        // Errors inside otherwise valid blocks are still found.
        ("{% for i in x %}{{ i | nope }}{% endfor %}", "unknown filter 'nope'"),
        ("{% if x %}{% else %}{{ y{% endif %}", "unterminated output '{{'"),
        ("{% if x %}{{ y | }}{% endif %}", "malformed output '{{ y | }}'"),
    ])
    func rejects(_ source: String, _ message: String) {
        #expect(LiquidTemplate.validate(source) == LiquidError(message))
        #expect(throws: LiquidError(message)) { try LiquidTemplate(parsing: source) }
    }

    @Test(arguments: [
        "", "plain", "{{ x }}", "{{ x | default: 'a' | upcase }}", "{% if a and b or c %}{% endif %}",
        "{% for i in (1..3) reversed limit: 2 offset: 1 %}{% break %}{% continue %}{% else %}{% endfor %}",
        "{% case x %}{% when 1, 2 or 3 %}{% else %}{% endcase %}", "{% raw %}{% if %}{% endraw %}",
        "{% comment %}{% if %}{% endcomment %}", "{% capture c %}{% endcapture %}", "{% assign a = b | size %}",
        "{%- if x -%}{%- endif -%}", "{{- x -}}", "{% unless x %}{% elsif y %}{% else %}{% endunless %}",
        "{{ a.b['c'][0].size }}", "{{ x | default: 1, allow_false: true }}", "{% break %}", "{% echo 'x' %}",
        "{% # note %}", "}} %} { %", "{{ x | truncatewords: 3, '' | url_encode | escape }}",
        "{% if x contains 'a' or x <> 1 %}{% endif %}",
    ])
    func accepts(_ source: String) {
        #expect(LiquidTemplate.validate(source) == nil)
    }
}

extension LiquidParseErrorTests {
    @Test func longOutputsAreShortenedInMessages() {
        let source = "{{ first_name | default: 'there' | upcase | append: '!' | prepend: 'x' y }}"
        #expect(LiquidTemplate.validate(source)?.message
            == "malformed output '{{ first_name | default: 'there' | upc... }}' near 'y'")
    }
}
