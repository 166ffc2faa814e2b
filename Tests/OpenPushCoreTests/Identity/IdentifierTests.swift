import Testing
import OpenPushCore

@Suite struct IdentifierTests {
    @Test func hasPrefixAndTwentySixCharacters() {
        let id = Identifier.make(prefix: "app", now: 1_756_598_400, random: Array(repeating: 7, count: 10))
        #expect(id.hasPrefix("app_"))
        #expect(id.count == 30)
        #expect(Identifier.isWellFormed(id, prefix: "app"))
        #expect(!Identifier.isWellFormed(id, prefix: "sub"))
        #expect(!Identifier.isWellFormed("app_short", prefix: "app"))
    }

    @Test func sortsByCreationTime() {
        let random = Array(repeating: UInt8(0xFF), count: 10)
        let earlier = Identifier.make(prefix: "msg", now: 1_000, random: random)
        let later = Identifier.make(prefix: "msg", now: 1_000.001, random: Array(repeating: 0, count: 10))
        #expect(earlier < later)
    }

    @Test func encodesKnownValue() {
        // 48-bit time 0x000000000001 then ten zero bytes: a ULID ending in ...01 in its time part.
        let id = Identifier.make(prefix: "x", now: 0.001, random: Array(repeating: 0, count: 10))
        #expect(id == "x_" + String(repeating: "0", count: 9) + "1" + String(repeating: "0", count: 16))
    }

    @Test func differentRandomnessGivesDifferentIds() {
        let a = Identifier.make(prefix: "sub", now: 5, random: Array(repeating: 1, count: 10))
        let b = Identifier.make(prefix: "sub", now: 5, random: Array(repeating: 2, count: 10))
        #expect(a != b)
    }
}
