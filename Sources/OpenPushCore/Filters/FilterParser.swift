/// Every problem found in a filter array, each naming its entry: `filters[2]: unknown field 'colour'`.
package struct FilterProblems: Error, Sendable, Equatable {
    package var messages: [String]

    package init(messages: [String]) {
        self.messages = messages
    }
}

/// Parses OneSignal's filter arrays into a `FilterExpression`, reporting every bad entry.
///
/// Entries are AND-ed; `{"operator": "OR"}` starts a new group, so AND binds tighter.
/// `{"operator": "AND"}` is accepted and changes nothing. An OR first, last, or next to another
/// OR has nothing to join and is an error. Which relation fits which field is `FilterField.relations`.
package enum FilterParser {
    package static let maximumEntries = 200

    /// `name` prefixes every message (`filters[0]: …`): the body field the array came from.
    package static func parse(_ value: JSONValue, name: String = "filters") -> Result<FilterExpression, FilterProblems> {
        guard case .array(let entries) = value else {
            return .failure(FilterProblems(messages: ["\(name) must be an array, got \(value.typeName)"]))
        }
        return parse(entries, name: name)
    }

    package static func parse(_ entries: [JSONValue], name: String = "filters") -> Result<FilterExpression, FilterProblems> {
        guard entries.count <= maximumEntries else {
            return .failure(FilterProblems(messages: ["\(name): at most \(maximumEntries) entries"]))
        }
        var problems: [String] = []
        var groups: [[FilterCondition]] = [[]]
        var last = Previous.start
        for (index, entry) in entries.enumerated() {
            let label = "\(name)[\(index)]"
            guard case .object(let object) = entry else {
                problems.append("\(label) must be an object, got \(entry.typeName)")
                last = .condition
                continue
            }
            if object["operator"] != nil {
                guard operatorIsOR(object, label: label, problems: &problems) else { continue }
                switch last {
                case .condition: groups.append([])
                case .start, .or: problems.append(misplacedOR(label))
                }
                last = .or(index: index, reported: last != .condition)
                continue
            }
            last = .condition
            if let condition = EntryParser(object, label: label).parse(into: &problems) {
                groups[groups.count - 1].append(condition)
            }
        }
        switch last {
        case .start:
            problems.append("\(name): at least one condition is required")
        case .or(let index, let reported) where !reported:
            problems.append(misplacedOR("\(name)[\(index)]"))
        default:
            break
        }
        guard problems.isEmpty else { return .failure(FilterProblems(messages: problems)) }
        return .success(FilterExpression(groups: groups))
    }

    /// What the previous entry was, for placing ORs.
    private enum Previous: Equatable {
        case start
        case condition
        case or(index: Int, reported: Bool)
    }

    private static func misplacedOR(_ label: String) -> String {
        "\(label): an OR must stand between two conditions"
    }

    /// True for an OR entry; an AND entry or a bad one (reported) is false.
    private static func operatorIsOR(_ entry: JSONObject, label: String, problems: inout [String]) -> Bool {
        for key in entry.keys where key != "operator" {
            problems.append("\(label): unknown key '\(key)' in an operator entry")
        }
        switch entry["operator"]?.stringValue?.uppercased() {
        case "OR": return true
        case "AND": return false
        default:
            problems.append("\(label): operator must be \"OR\" or \"AND\"")
            return false
        }
    }
}
