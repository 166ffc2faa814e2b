import Testing
import OpenPushCore

@Suite struct LinkCodeTests {
    @Test func isTwelveUnambiguousCharacters() {
        let code = LinkCode.make(random: Array(0...13))
        #expect(code == "23456789ABCD")
        #expect(LinkCode.make(random: Array(repeating: 0xFF, count: 12)) == "ZZZZZZZZZZZZ")
        for character in "01OI" {
            #expect(!LinkCode.alphabet.contains(character))
        }
        #expect(LinkCode.alphabet.count == 32)
        #expect(Set(LinkCode.alphabet).count == 32)
    }

    /// 12 characters of 5 bits: at least 60 random bits.
    @Test func carriesSixtyRandomBits() {
        #expect(LinkCode.alphabet.count == 1 << 5)
        #expect(LinkCode.length * 5 >= 60)
        #expect(LinkCode.make(random: Array(repeating: 0, count: 12)).count == 12)
    }

    @Test func everyByteMapsIntoTheAlphabet() {
        let code = LinkCode.make(random: [0x20, 0x3F, 0x40, 0x9A, 0xC1, 0xE0, 0x07, 0x10, 0x55, 0xAA, 0x0F, 0xF0])
        #expect(code.count == LinkCode.length)
        #expect(code.allSatisfy(LinkCode.alphabet.contains))
        #expect(LinkCode.normalized(code) == code)
    }

    @Test(arguments: [
        ("K7QX-M2PA-9RTE", "K7QXM2PA9RTE"),
        ("k7qx m2pa 9rte", "K7QXM2PA9RTE"),
        (" K7QXM2PA9RTE ", "K7QXM2PA9RTE"),
    ])
    func normalizesWhatAPersonTypes(typed: String, stored: String) {
        #expect(LinkCode.normalized(typed) == stored)
    }

    @Test(arguments: ["", "K7QXM2PA", "K7QXM2PA9RT", "K7QXM2PA9RTEB", "K7QXM2PA9RT0", "K7QXM2PA9RTI", "K7QX_M2PA_9RTE",
                       String(repeating: "-", count: 70) + "K7QXM2PA9RTE"])
    func refusesWhatCannotBeACode(typed: String) {
        #expect(LinkCode.normalized(typed) == nil)
    }
}
