/// Public ids such as `app_01hq8b…`, `sub_…`, `msg_…`: a prefix naming the kind, then a ULID in
/// lower case — 48 bits of milliseconds then 80 random bits — so ids sort by creation time.
package enum Identifier {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)  // Crockford base32

    /// `now` is unix seconds; `random` must hold at least 10 bytes.
    package static func make(prefix: String, now: Double, random: [UInt8]) -> String {
        precondition(random.count >= 10, "an identifier needs 80 random bits")
        let milliseconds = UInt64(max(0, now * 1000)) & 0xFFFF_FFFF_FFFF
        var bytes: [UInt8] = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64($0)))) }
        bytes += random.prefix(10)
        return prefix + "_" + base32(bytes)
    }

    /// 128 bits as 26 base32 characters, most significant first (the first holds 3 bits).
    static func base32(_ bytes: [UInt8]) -> String {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for byte in bytes.prefix(8) { high = high << 8 | UInt64(byte) }
        for byte in bytes.dropFirst(8).prefix(8) { low = low << 8 | UInt64(byte) }
        var characters = [UInt8](repeating: 0, count: 26)
        for position in (0..<26).reversed() {
            characters[position] = alphabet[Int(low & 0x1F)]
            low = (low >> 5) | ((high & 0x1F) << 59)
            high >>= 5
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether `text` has the shape of an id of this kind (cheap check before a lookup).
    package static func isWellFormed(_ text: String, prefix: String) -> Bool {
        guard text.hasPrefix(prefix + "_") else { return false }
        let body = text.utf8.dropFirst(prefix.utf8.count + 1)
        return body.count == 26 && body.allSatisfy { alphabet.contains($0) }
    }
}
