/// One name of `outcome_names`: the outcome and how its records are added up, written
/// `name.count` or `name.sum` as OneSignal does (`os__click.count`, `Purchase.sum`).
package struct OutcomeName: Sendable, Equatable, Hashable {
    package enum Aggregation: String, Sendable, CaseIterable {
        case count
        case sum
    }

    package var name: String
    package var aggregation: Aggregation

    package init(name: String, aggregation: Aggregation) {
        self.name = name
        self.aggregation = aggregation
    }

    /// OneSignal's prefix for its own outcomes; a device cannot report a name with it.
    package static let builtInPrefix = "os__"
    /// Characters a custom name may hold: letters, digits, space and `_ - . , :` (OneSignal's
    /// names may contain commas, hence `outcome_names[]`).
    package static func isAllowed(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || " _-.,:".contains(character))
    }

    /// Splits `text` at its last dot; nil message when it is well formed.
    package static func parse(_ text: String) -> Result<OutcomeName, InvalidInput> {
        guard let dot = text.lastIndex(of: "."),
              let aggregation = Aggregation(rawValue: String(text[text.index(after: dot)...])) else {
            return .failure(InvalidInput("outcome name '\(text)' must end in .count or .sum"))
        }
        let name = String(text[..<dot])
        if let problem = problem(name) { return .failure(InvalidInput("outcome name '\(text)': \(problem)")) }
        return .success(OutcomeName(name: name, aggregation: aggregation))
    }

    /// Why `name` (without its suffix) cannot be an outcome's name, or nil.
    package static func problem(_ name: String) -> String? {
        if name.isEmpty || name.count > OutcomeLimits.maximumNameLength {
            return "a name must be 1 to \(OutcomeLimits.maximumNameLength) characters"
        }
        if !name.allSatisfy(isAllowed) {
            return "a name may hold only letters, digits, spaces and _ - . , :"
        }
        return nil
    }
}
