/// What an update does to one optional field: leave it as it is (absent from the body), clear
/// it (`null`), or set it to a value.
package enum FieldChange<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case clear
    case set(Value)

    /// The value the field holds afterwards, when the change touches it (`nil` for `clear`).
    package var newValue: Value? {
        if case .set(let value) = self { return value }
        return nil
    }

    package var isKeep: Bool { self == .keep }
}

extension FieldReader {
    /// An optional field of an update: absent keeps it, `null` clears it, anything else is read
    /// by `read` (which records its own problems and returns nil when the value is bad).
    package mutating func change<Value>(_ key: String, _ read: (inout FieldReader) -> Value?) -> FieldChange<Value> {
        switch object[key] {
        case nil:
            return .keep
        case .null?:
            _ = value(key)
            return .clear
        default:
            return read(&self).map { .set($0) } ?? .keep
        }
    }
}
