extension FieldReader {
    /// Reads the object under `key` with a reader of its own. Its problems come back here with
    /// the field named by its path: `identity.external_id must be a string`, `unknown field 'subscription.x'`.
    package mutating func nestedObject<T>(_ key: String, required: Bool = false, _ read: (inout FieldReader) -> T) -> T? {
        switch value(key) {
        case nil, .null?:
            if required { problem("\(key) is required") }
            return nil
        case .object(let object)?:
            var nested = FieldReader(object)
            let result = read(&nested)
            let prefix = "unknown field '"
            for message in nested.problems {
                if message.hasPrefix(prefix) {
                    problem(prefix + key + "." + message.dropFirst(prefix.count))
                } else {
                    problem(key + "." + message)
                }
            }
            return nested.problems.isEmpty ? result : nil
        case let other?:
            problem("\(key) must be an object, got \(other.typeName)")
            return nil
        }
    }
}
