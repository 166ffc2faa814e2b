/// An id handed out as an opaque token (base64url without padding of its 8 big-endian bytes,
/// always 11 characters) so callers pass it back rather than build one, and the id's form can
/// change without breaking them: a `DeliveryPosition`'s cursor starts with one, and an
/// `EventPosition`'s is made of them.
package enum DeliveryCursor {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
    static let length = 11

    package static func encode(_ id: Int64) -> String {
        let bits = UInt64(bitPattern: id)
        var text = String.UnicodeScalarView()
        // Ten groups of 6 bits from the top, then the last 4 bits padded with two zero bits.
        for group in 0..<10 { text.append(alphabet[Int((bits >> (58 - 6 * UInt64(group))) & 63)]) }
        text.append(alphabet[Int((bits & 15) << 2)])
        return String(text)
    }

    /// The id a cursor stands for; nil for anything `encode` cannot have produced (wrong length
    /// or alphabet, padding, non-zero trailing bits, a negative id).
    package static func decode(_ text: String) -> Int64? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == length else { return nil }
        var groups: [UInt64] = []
        for scalar in scalars {
            guard let value = sextet(scalar) else { return nil }
            groups.append(value)
        }
        guard groups[10] & 3 == 0 else { return nil }
        var bits: UInt64 = groups[10] >> 2
        for group in 0..<10 { bits |= groups[group] << (58 - 6 * UInt64(group)) }
        guard bits <= UInt64(Int64.max) else { return nil }
        return Int64(bits)
    }

    private static func sextet(_ scalar: Unicode.Scalar) -> UInt64? {
        switch scalar {
        case "A"..."Z": UInt64(scalar.value - 65)
        case "a"..."z": UInt64(scalar.value - 97 + 26)
        case "0"..."9": UInt64(scalar.value - 48 + 52)
        case "-": 62
        case "_": 63
        default: nil
        }
    }
}
