/// A JSON object that remembers insertion order. A repeated key keeps its first position and
/// takes the last value, as most parsers do.
package struct JSONObject: Sendable, Hashable, Sequence {
    package private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    package init() {}

    package init<S: Sequence>(_ pairs: S) where S.Element == (String, JSONValue) {
        for (key, value) in pairs { self[key] = value }
    }

    package subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            guard let newValue else {
                if values.removeValue(forKey: key) != nil { keys.removeAll { $0 == key } }
                return
            }
            if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
        }
    }

    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }

    package func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        keys.lazy.map { (key: $0, value: values[$0]!) }.makeIterator()
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        // Key order does not make two objects different.
        lhs.values == rhs.values
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(values)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
