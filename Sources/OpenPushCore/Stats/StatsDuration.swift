/// A duration as the stats routes take it: a whole number and one unit, `s`, `m`, `h` or `d`
/// (`10s`, `15m`, `24h`, `7d`). Nothing else is read: no sign, no fraction, no spaces.
package enum StatsDuration {
    package static let units: [(suffix: Character, seconds: Int64)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]

    /// Seconds, or nil when `text` is not such a duration (or is absurdly large).
    package static func seconds(_ text: String) -> Int64? {
        guard let unitCharacter = text.last, let unit = units.first(where: { $0.suffix == unitCharacter }) else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int64(digits) else { return nil }
        return value * unit.seconds
    }

    /// The shortest spelling of whole seconds with the largest unit that divides them: 900 → `15m`.
    package static func text(_ seconds: Int64) -> String {
        for unit in units.reversed() where seconds > 0 && seconds % unit.seconds == 0 {
            return "\(seconds / unit.seconds)\(unit.suffix)"
        }
        return "\(seconds)s"
    }
}
