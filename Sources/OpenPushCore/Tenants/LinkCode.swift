/// The short code a shared demo app's tenant types into the sample app to link a device to
/// itself: 12 characters from 32 that cannot be misread for one another (no `0`, `O`, `1`, `I`),
/// 60 random bits — with the link route's limit on wrong codes, far beyond guessing. Shown in
/// groups of four (`K7QX-M2PA-9RTE`). Unique per app (the database holds the constraint, not this type).
package enum LinkCode {
    package static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    package static let length = 12
    /// Longest text `normalized` accepts before refusing it outright (spaces and dashes allowed).
    package static let maximumInputLength = 64

    /// A code from `random`, which must hold at least `length` bytes. 32 divides 256, so
    /// taking five bits of each byte leaves every character equally likely.
    package static func make(random: [UInt8]) -> String {
        precondition(random.count >= length, "a link code needs \(length) random bytes")
        return String(random.prefix(length).map { alphabet[Int($0 & 0x1F)] })
    }

    /// The code as stored, from what a person typed: upper-cased, spaces and dashes dropped
    /// (`k7qx-m2pa-9rte` is `K7QXM2PA9RTE`). Text that can never be a code gives nil.
    package static func normalized(_ text: String) -> String? {
        guard text.count <= maximumInputLength else { return nil }
        let code = String(text.uppercased().filter { $0 != " " && $0 != "-" })
        guard code.count == length, code.allSatisfy(alphabet.contains) else { return nil }
        return code
    }
}
