import Testing
import OpenPushCore

/// One budget per rendered text that every step draws from (issue 37, item 1): comparisons,
/// copies, elements made and output all count, exhaustion is reported, and a template whose
/// cost shows without a recipient is refused when it is validated.
@Suite struct LiquidBudgetTests {
    static func rendering(_ source: String, _ context: JSONObject = [:]) throws -> LiquidRendering {
        try LiquidTemplate(parsing: source).render(context)
    }

    /// A tag of `bytes` bytes, as a recipient could carry.
    static func text(_ bytes: Int) -> JSONValue { .string(String(repeating: "a", count: bytes)) }

    @Test func aHostileTemplateExhaustsItsBudgetAndSaysSo() throws {
        // A 1 MiB string (16 B doubled 16 times), then compared 10,000 times.
        let hostile = try Self.rendering("""
            {%- assign s = "0123456789abcdef" -%}
            {%- for i in (1..16) %}{% assign s = s | append: s %}{% endfor -%}
            {%- for i in (1..10000) %}{% if s contains "z" %}z{% endif %}{% endfor -%}
            done
            """)
        #expect(hostile.exceededBudget)
        #expect(!hostile.text.contains("done"))
        #expect(hostile.spent.bytes > LiquidBudget.maximumBytes || hostile.spent.steps > LiquidBudget.maximumSteps)
    }

    @Test func comparisonsAreChargedByTheBytesTheyRead() throws {
        // 100 comparisons of a 20 kB value read 2 MB: over budget, whichever comparison it is.
        let context: JSONObject = ["big": Self.text(20_000)]
        for condition in [#"big contains "z""#, #"big == "z""#, #"big != "z""#, #"big < "z""#, "big == blank"] {
            let source = "{% for i in (1..100) %}{% if \(condition) %}{% endif %}{% endfor %}done"
            let rendering = try Self.rendering(source, context)
            #expect(rendering.exceededBudget, "\(condition)")
            // The same loop over a short value is cheap.
            let cheap = try Self.rendering(source, ["big": "abc"])
            #expect(cheap.text == "done" && !cheap.exceededBudget, "\(condition)")
        }
        let switched = try Self.rendering(
            #"{% for i in (1..100) %}{% case big %}{% when "x" %}x{% endcase %}{% endfor %}"#, context)
        #expect(switched.exceededBudget)
    }

    @Test func filtersAreChargedTheirInputAndResult() throws {
        let context: JSONObject = ["big": Self.text(20_000)]
        // `size` and `downcase` copy nothing visible, but read the whole input every time.
        #expect(try Self.rendering("{% for i in (1..100) %}{{ big | size }}{% endfor %}", context).exceededBudget)
        #expect(try Self.rendering("{% for i in (1..100) %}{% assign x = big | downcase %}{% endfor %}", context).exceededBudget)
        #expect(try Self.rendering("{% for i in (1..100) %}{{ big.size }}{% endfor %}", context).exceededBudget)
        // Every element `split` makes is a step: 200,000 of them are over budget, and it stops early.
        let split = try Self.rendering(#"{{ big | split: "" | size }}"#, ["big": Self.text(200_000)])
        #expect(split.exceededBudget)
        #expect(split.text == "")
        // Output counts too: the text's is cut at 64 KiB, a capture's is not.
        #expect(try Self.rendering("{% for i in (1..100) %}{% capture c %}{{ big }}{% endcapture %}{% endfor %}",
                                   context).exceededBudget)
        #expect(try !Self.rendering("{% for i in (1..100) %}{{ big }}{% endfor %}", context).exceededBudget)
    }

    @Test func loopsAreChargedPerIteration() throws {
        #expect(try Self.rendering("{% for i in (1..1000000000) %}{% endfor %}").exceededBudget)
        #expect(try Self.rendering("""
            {% for a in (1..1000) %}{% for b in (1..1000) %}{% endfor %}{% endfor %}
            """).exceededBudget)
        let tenThousand = try Self.rendering("{% for i in (1..10000) %}{% endfor %}")
        #expect(!tenThousand.exceededBudget)
    }

    @Test func aRealisticTemplateSpendsAFewPercentOfTheBudget() throws {
        // The heaviest kind of template the suites use: conditions, a loop over the user's
        // aliases, filters, a capture.
        let template = try LiquidTemplate(parsing: """
            {%- capture greeting -%}
              {%- if subscription.language == "pt" -%}Olá{%- elsif subscription.language == "es" -%}Hola{%- else -%}Hi{%- endif -%}
            {%- endcapture -%}
            {{ greeting }} {{ first_name | default: "there" | capitalize | truncate: 20 }}!
            {%- for alias in user.aliases %} {{ alias[0] | upcase }}={{ alias[1] | url_encode }}{% endfor -%}
            {%- case tier %}{% when "gold", "platinum" %} ⭐{% else %}{% endcase -%}
            {%- assign words = message.custom_data.items | split: "," -%}
            {%- for word in words limit: 5 %} {{ word | strip | escape }}{% unless forloop.last %},{% endunless %}{% endfor -%}
            """)
        let context = LocalizedText.context(
            tags: ["first_name": "ana", "tier": "gold"], subscription: ["id": "sub_1", "language": "pt"],
            user: ["external_id": "u-1", "aliases": ["crm": "c-1", "shop": "s 2"]],
            customData: ["items": "shoes, socks, hat, scarf, gloves, belt"])
        let rendering = template.render(context)
        #expect(!rendering.exceededBudget)
        #expect(rendering.text == "Olá Ana! CRM=c-1 SHOP=s+2 ⭐ shoes, socks, hat, scarf, gloves")
        #expect(rendering.spent.steps < LiquidBudget.maximumSteps / 100)
        #expect(rendering.spent.bytes < LiquidBudget.maximumBytes / 100)
    }

    // MARK: - Refused before any recipient

    @Test(arguments: [
        "{% for i in (1..100000000) %}{% endfor %}",
        "{% for a in (1..1000) %}{% for b in (1..1000) %}x{% endfor %}{% endfor %}",
        #"{% assign s = "ab" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}"#,
        #"{% assign s = "ab" %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}"#,
        #"{% for i in (1..100000) %}{% if "abc" contains "z" %}{% endif %}{% endfor %}"#,
    ])
    func aTemplateOverBudgetWithoutARecipientIsRefused(source: String) {
        #expect(LiquidTemplate.validate(source) == .overBudget)
        #expect(LiquidError.overBudget.message.contains("100000 steps"))
    }

    @Test func aTemplateWhoseCostDependsOnTheRecipientPassesValidation() throws {
        // Cheap without a recipient's data: only rendering for a recipient can tell.
        let source = #"{% for i in (1..2000) %}{% if big contains "z" %}{% endif %}{% endfor %}"#
        #expect(LiquidTemplate.validate(source) == nil)
        #expect(LiquidTemplate.validate("{% for i in (1..100) %}{{ i }}{% endfor %}") == nil)
        // The same template, for a recipient with a 1,000-byte tag, is over budget (2 MB read).
        #expect(try Self.rendering(source, ["big": Self.text(1000)]).exceededBudget)
    }

    @Test func aLanguageMapOverBudgetThrows() throws {
        let templates = LocalizedTemplates(["en": #"{% for i in (1..2000) %}{% if big contains "z" %}{% endif %}{% endfor %}ok"#])
        #expect(try templates.render(language: nil, context: ["big": "abc"], limit: 100) == "ok")
        #expect(throws: LiquidBudget.Exceeded.self) {
            try templates.render(language: nil, context: ["big": Self.text(1000)], limit: 100)
        }
    }

    @Test func aRecipientOverBudgetIsNotSentToAndTheOthersAre() throws {
        let app = DeliveryContext.App(id: "app_a", bundleID: "com.example.app")
        let send = try NotificationSendParser.parse([
            "contents": ["en": #"Hi{% for i in (1..2000) %}{% if big contains "z" %}!{% endif %}{% endfor %}"#],
            "included_segments": ["Subscribed Users"],
        ]).get()
        var context = DeliveryContext()
        context.add(app)
        context.add(DeliveryContext.Message(id: "msg_1", appID: "app_a", notification: send, sendTime: 1_800_000_000))
        context.add(DeliveryContext.Subscription(id: "sub_1", appID: "app_a", tags: ["big": String(repeating: "a", count: 1000)],
                                                 token: "aa"))
        context.add(DeliveryContext.Subscription(id: "sub_2", appID: "app_a", tags: ["big": "abc"], token: "bb"))
        var cache = DeliveryPlanner.PayloadCache()
        func plan(_ subscription: String, token: String) -> Result<DeliveryPlanner.Plan, DeliveryPlanner.Refusal> {
            let delivery = ClaimedDelivery(id: 0, apnsID: "6f1e2d3c-0000-8000-8000-000000000001", messageID: "msg_1", appID: "app_a",
                                           subscriptionID: subscription, liveActivityID: nil, tokenKind: .device, token: token,
                                           badge: nil, attempts: 1, createdAt: 1_800_000_000)
            return DeliveryPlanner.plan(delivery, context: context, now: 1_800_000_001, lastTimestamps: [:], cache: &cache)
        }
        guard case .failure(let refusal) = plan("sub_1", token: "aa") else {
            Issue.record("a recipient over budget was planned")
            return
        }
        #expect(refusal == .permanent(DeliveryPlanner.templateBudgetExceeded))
        #expect(DeliveryPlanner.templateBudgetExceeded == "TemplateBudgetExceeded")
        let other = try plan("sub_2", token: "bb").get()
        let body = other.request.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue
        #expect(body == "Hi")
    }
}
