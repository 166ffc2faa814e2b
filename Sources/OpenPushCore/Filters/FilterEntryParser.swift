/// Reads one condition entry such as `{"field": "tag", "key": "level", "relation": ">", "value": "10"}`.
/// The relation may be spelled `relation` (OneSignal) or `op`; numbers may arrive as JSON
/// numbers or numeric strings, as OneSignal's own examples send them.
struct EntryParser {
    static let knownKeys: Set<String> = ["field", "key", "relation", "op", "value", "hours_ago"]

    let entry: JSONObject
    let label: String
    private var problems: [String] = []

    init(_ entry: JSONObject, label: String) {
        self.entry = entry
        self.label = label
    }

    /// The condition, or nil with every problem of the entry appended to `found`.
    func parse(into found: inout [String]) -> FilterCondition? {
        var parser = self
        let condition = parser.condition()
        found += parser.problems
        return parser.problems.isEmpty ? condition : nil
    }

    private mutating func condition() -> FilterCondition? {
        for key in entry.keys where !Self.knownKeys.contains(key) {
            problem("unknown key '\(key)'")
        }
        let field = self.field()
        let relation = self.relation()
        guard let field, let relation else { return nil }
        guard field.relations.contains(relation) else {
            let allowed = field.relations.map(\.rawValue).joined(separator: ", ")
            problem("relation '\(relation.rawValue)' does not apply to \(field.rawValue) (use \(allowed))")
            return nil
        }
        switch field {
        case .tag:
            let key = tagKey()
            let test = tagTest(relation)
            guard let key, let test else { return nil }
            return .tag(key: key, test)
        case .language:
            return textTest(relation).map(FilterCondition.language)
        case .country:
            return textTest(relation).map(FilterCondition.country)
        case .appVersion:
            return versionTest(relation).map(FilterCondition.appVersion)
        case .sessionCount:
            return numberTest(relation).map(FilterCondition.sessionCount)
        case .lastSession:
            return hoursAgo(field).map { .lastSession(Comparison(relation), hoursAgo: $0) }
        case .firstSession:
            return hoursAgo(field).map { .firstSession(Comparison(relation), hoursAgo: $0) }
        }
    }

    private mutating func problem(_ message: String) {
        problems.append("\(label): \(message)")
    }

    // MARK: - Field, relation, key

    private mutating func field() -> FilterField? {
        switch entry["field"] {
        case nil, .null?:
            problem("field is required")
        case .string(let name)?:
            if let field = FilterField(rawValue: name) { return field }
            problem("unknown field '\(name)'")
        case let other?:
            problem("field must be a string, got \(other.typeName)")
        }
        return nil
    }

    /// `relation` and `op` are synonyms; given both, they must agree.
    private mutating func relation() -> FilterRelation? {
        let spellings = ["relation", "op"].compactMap { key in entry[key].map { (key, $0) } }.filter { !$0.1.isNull }
        guard let (key, value) = spellings.first else {
            problem("relation is required")
            return nil
        }
        guard case .string(let name) = value else {
            problem("\(key) must be a string, got \(value.typeName)")
            return nil
        }
        if spellings.count == 2, spellings[1].1 != value {
            problem("relation and op disagree")
            return nil
        }
        guard let relation = FilterRelation(rawValue: name) else {
            problem("unknown relation '\(name)'")
            return nil
        }
        return relation
    }

    private mutating func tagKey() -> String? {
        guard case .string(let key)? = entry["key"], !key.isEmpty else {
            problem("tag filters need a key")
            return nil
        }
        return key
    }

    // MARK: - Tests per field

    private mutating func tagTest(_ relation: FilterRelation) -> TagTest? {
        switch relation {
        case .greaterThan, .lessThan:
            return numericValue(relation).map { .number(Comparison(relation), $0) }
        case .timeElapsedGreaterThan:
            return numericValue(relation).map { .timeElapsed(.greaterThan, seconds: $0) }
        case .timeElapsedLessThan:
            return numericValue(relation).map { .timeElapsed(.lessThan, seconds: $0) }
        default:
            return textTest(relation).map(TagTest.text)
        }
    }

    private mutating func versionTest(_ relation: FilterRelation) -> VersionTest? {
        switch relation {
        case .greaterThan, .lessThan:
            guard let version = value.flatMap(Self.text), Self.isDottedVersion(version) else {
                problem("relation '\(relation.rawValue)' on app_version needs a version such as 1.2.3")
                return nil
            }
            return .version(Comparison(relation), version)
        default:
            return textTest(relation).map(VersionTest.text)
        }
    }

    private mutating func numberTest(_ relation: FilterRelation) -> NumberTest? {
        guard let number = numericValue(relation) else { return nil }
        switch relation {
        case .equals: return .equals(number)
        case .notEquals: return .notEquals(number)
        case .greaterThan: return .greaterThan(number)
        default: return .lessThan(number)
        }
    }

    /// The relations every text attribute shares.
    private mutating func textTest(_ relation: FilterRelation) -> TextTest? {
        switch relation {
        case .equals: return textValue(relation).map(TextTest.equals)
        case .notEquals: return textValue(relation).map(TextTest.notEquals)
        case .exists: return .exists
        case .notExists: return .notExists
        case .inArray: return listValue(relation).map(TextTest.inArray)
        case .notInArray: return listValue(relation).map(TextTest.notInArray)
        default: return nil  // FilterField.relations keeps the others away
        }
    }

    // MARK: - Values

    private var value: JSONValue? { entry["value"] }

    private mutating func textValue(_ relation: FilterRelation) -> String? {
        guard let text = value.flatMap(Self.text) else {
            problem("relation '\(relation.rawValue)' needs a string or number value")
            return nil
        }
        return text
    }

    private mutating func numericValue(_ relation: FilterRelation) -> Double? {
        guard let number = value.flatMap(Self.number) else {
            problem("relation '\(relation.rawValue)' needs a numeric value")
            return nil
        }
        return number
    }

    private mutating func listValue(_ relation: FilterRelation) -> [String]? {
        guard case .array(let items)? = value, !items.isEmpty else {
            problem("relation '\(relation.rawValue)' needs a non-empty array of strings as its value")
            return nil
        }
        let texts = items.compactMap(Self.text)
        guard texts.count == items.count else {
            problem("relation '\(relation.rawValue)' needs a non-empty array of strings as its value")
            return nil
        }
        return texts
    }

    private mutating func hoursAgo(_ field: FilterField) -> Double? {
        guard let hours = entry["hours_ago"].flatMap(Self.number), hours >= 0 else {
            problem("\(field.rawValue) filters need hours_ago, a number of 0 or more")
            return nil
        }
        // `now - hours` becomes a PostgreSQL timestamp, which cannot reach back much further.
        guard hours <= Self.maximumHoursAgo else {
            problem("\(field.rawValue) filters need hours_ago of \(Int(Self.maximumHoursAgo)) or less")
            return nil
        }
        return hours
    }

    /// About 1,140 years: far past any session, well inside PostgreSQL's timestamps (4713 BC).
    static let maximumHoursAgo: Double = 10_000_000

    /// Strings as they are, numbers as their shortest text (`2.0` is `"2"`).
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number):
            if let whole = value.intValue { return String(whole) }
            return number.description
        default: return nil
        }
    }

    /// JSON numbers, and strings holding a plain decimal number (`"10"`, `"-2.5"`, `"1e3"`).
    /// Swift's own parser also takes `nan`, `inf` and hex, which a filter value must not be.
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int, .double:
            return value.doubleValue
        case .string(let text):
            guard text.contains(where: \.isASCIIDigit),
                  text.allSatisfy({ $0.isASCIIDigit || "+-.eE".contains($0) }),
                  let number = Double(text), number.isFinite
            else { return nil }
            return number
        default:
            return nil
        }
    }

    /// `1`, `1.2`, `10.0.3`: digits separated by single dots.
    static func isDottedVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.count <= 18 && $0.allSatisfy(\.isASCIIDigit) }
    }
}

extension Comparison {
    /// Only for `>` and `<`; the parser calls it after checking the relation.
    init(_ relation: FilterRelation) {
        self = relation == .lessThan ? .lessThan : .greaterThan
    }
}

fileprivate extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
