import Testing
import OpenPushCore

/// Plain texts need no recipient context: a fan-out skips building it per device.
@Suite struct LocalizedTemplatesTests {
    @Test func onlyTextsWithLiquidMarkupUseLiquid() {
        #expect(!LocalizedTemplates(["en": "Your order is on its way", "fr": "En route { presque }"]).usesLiquid)
        #expect(!LocalizedTemplates(nil).usesLiquid)
        #expect(LocalizedTemplates(["en": "plain", "de": "Hallo {{ first_name }}"]).usesLiquid)
        #expect(LocalizedTemplates(["en": "{%- if vip -%}VIP{%- endif -%}"]).usesLiquid)
    }

    @Test func aPlainTextRendersAsWrittenWhateverTheContext() throws {
        let plain = LocalizedTemplates(["en": "Arriving soon", "pt": "Chegando"])
        #expect(try plain.render(language: "pt", context: ["first_name": "Ana"], limit: 100) == "Chegando")
        #expect(try plain.render(language: "pt", context: [:], limit: 100) == "Chegando")
        #expect(try plain.render(language: nil, context: [:], limit: 5) == "Arriv")
    }

    @Test func aMessageRendersLiquidWhenAnyOfItsTextsDoes() throws {
        let plain = try NotificationSendParser.parse(["included_segments": ["All"], "contents": ["en": "Hi"],
                                                      "headings": ["en": "News"]]).get()
        #expect(!DeliveryContext.Message(id: "m", appID: "a", notification: plain).rendersLiquid)
        let personal = try NotificationSendParser.parse(["included_segments": ["All"], "contents": ["en": "Hi"],
                                                         "subtitle": ["en": "for {{ user.external_id }}"]]).get()
        #expect(DeliveryContext.Message(id: "m", appID: "a", notification: personal).rendersLiquid)
    }
}
