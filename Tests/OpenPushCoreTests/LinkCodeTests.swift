import Testing
import OpenPushCore

@Suite struct LinkCodeTests {
    @Test func isEightUnambiguousCharacters() {
        let code = LinkCode.make(random: Array(0...9))
        #expect(code == "23456789")
        #expect(LinkCode.make(random: Array(repeating: 0xFF, count: 8)) == "ZZZZZZZZ")
        for character in "01OI" {
            #expect(!LinkCode.alphabet.contains(character))
        }
        #expect(LinkCode.alphabet.count == 32)
        #expect(Set(LinkCode.alphabet).count == 32)
    }

    @Test func everyByteMapsIntoTheAlphabet() {
        let code = LinkCode.make(random: [0x20, 0x3F, 0x40, 0x9A, 0xC1, 0xE0, 0x07, 0x10])
        #expect(code.count == LinkCode.length)
        #expect(code.allSatisfy(LinkCode.alphabet.contains))
        #expect(LinkCode.normalized(code) == code)
    }

    @Test(arguments: [
        ("K7QX-M2PA", "K7QXM2PA"),
        ("k7qx m2pa", "K7QXM2PA"),
        (" K7QXM2PA ", "K7QXM2PA"),
    ])
    func normalizesWhatAPersonTypes(typed: String, stored: String) {
        #expect(LinkCode.normalized(typed) == stored)
    }

    @Test(arguments: ["", "K7QXM2P", "K7QXM2PAB", "K7QXM2P0", "K7QXM2PI", "K7QX_M2PA", String(repeating: "-", count: 70) + "K7QXM2PA"])
    func refusesWhatCannotBeACode(typed: String) {
        #expect(LinkCode.normalized(typed) == nil)
    }
}
