/// Reads typed fields out of a JSON request body and collects every problem, in the order the
/// fields are read, so one `InvalidInput` can name them all. Messages name the field:
/// `name is required`, `enabled must be a boolean`, `unknown field 'colour'`.
package struct FieldReader {
    package let object: JSONObject
    package private(set) var problems: [String] = []
    private var read: Set<String> = []

    package init(_ object: JSONObject) {
        self.object = object
    }

    /// Records a problem found by the caller's own rule.
    package mutating func problem(_ message: String) {
        problems.append(message)
    }

    /// Whether the body has this key at all (`null` counts as present).
    package func has(_ key: String) -> Bool { object[key] != nil }

    /// The raw value, marking the key as known.
    package mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        return object[key]
    }

    /// A string; blank strings count as missing when `required`.
    package mutating func string(_ key: String, required: Bool = false, maxLength: Int? = nil) -> String? {
        switch value(key) {
        case nil, .null?:
            if required { problem("\(key) is required") }
            return nil
        case .string(let text)?:
            if required, text.allSatisfy(\.isWhitespace) {
                problem("\(key) is required")
                return nil
            }
            if let maxLength, text.count > maxLength {
                problem("\(key) must be \(maxLength) characters or fewer")
                return nil
            }
            return text
        case let other?:
            problem("\(key) must be a string, got \(other.typeName)")
            return nil
        }
    }

    /// One of a fixed set of strings.
    package mutating func choice(_ key: String, _ allowed: [String], required: Bool = false) -> String? {
        guard let text = string(key, required: required) else { return nil }
        guard allowed.contains(text) else {
            problem("\(key) must be one of: \(allowed.joined(separator: ", "))")
            return nil
        }
        return text
    }

    /// One of `allowed`, an enum's cases; the error lists their raw values in that order.
    package mutating func choice<Choice: RawRepresentable<String>>(_ key: String, among allowed: [Choice],
                                                                  required: Bool = false) -> Choice? {
        choice(key, allowed.map(\.rawValue), required: required).flatMap(Choice.init(rawValue:))
    }

    package mutating func bool(_ key: String, required: Bool = false) -> Bool? {
        switch value(key) {
        case nil, .null?:
            if required { problem("\(key) is required") }
            return nil
        case .bool(let flag)?:
            return flag
        case let other?:
            problem("\(key) must be a boolean, got \(other.typeName)")
            return nil
        }
    }

    /// A whole number within `range` (`10.0` is accepted as 10).
    package mutating func integer(_ key: String, in range: ClosedRange<Int64>, required: Bool = false) -> Int64? {
        guard let raw = value(key), raw != .null else {
            if required { problem("\(key) is required") }
            return nil
        }
        guard let number = raw.intValue, range.contains(number) else {
            problem("\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return number
    }

    /// An object whose values are all strings (tags, language maps).
    package mutating func stringMap(_ key: String, required: Bool = false) -> [String: String]? {
        switch value(key) {
        case nil, .null?:
            if required { problem("\(key) is required") }
            return nil
        case .object(let map)?:
            var result: [String: String] = [:]
            for (name, entry) in map {
                guard case .string(let text) = entry else {
                    problem("\(key).\(name) must be a string, got \(entry.typeName)")
                    return nil
                }
                result[name] = text
            }
            return result
        case let other?:
            problem("\(key) must be an object of strings, got \(other.typeName)")
            return nil
        }
    }

    /// An array of strings.
    package mutating func stringArray(_ key: String, required: Bool = false) -> [String]? {
        switch value(key) {
        case nil, .null?:
            if required { problem("\(key) is required") }
            return nil
        case .array(let items)?:
            var result: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    problem("\(key)[\(index)] must be a string, got \(item.typeName)")
                    return nil
                }
                result.append(text)
            }
            return result
        case let other?:
            problem("\(key) must be an array of strings, got \(other.typeName)")
            return nil
        }
    }

    /// Every key that no accessor read is unknown: `unknown field 'x'`, in body order.
    package mutating func rejectUnknownFields() {
        for key in object.keys where !read.contains(key) {
            problem("unknown field '\(key)'")
        }
    }

    /// Throws one `InvalidInput` listing every problem, if there were any.
    package func finish() throws(InvalidInput) {
        if !problems.isEmpty { throw InvalidInput(problems) }
    }
}
