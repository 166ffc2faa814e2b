/// A JSON document as a value. Objects keep their key order so that validation can report
/// problems in the order a client wrote them, and integers stay integers.
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    package var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    package var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    package var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// Any JSON number as a `Double`; booleans are not numbers.
    package var doubleValue: Double? {
        switch self {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: return nil
        }
    }

    /// An integer, also from a double with no fractional part (`10.0`).
    package var intValue: Int64? {
        switch self {
        case .int(let int): return int
        case .double(let double) where double.rounded() == double && abs(double) < 9e15: return Int64(double)
        default: return nil
        }
    }

    package var isNull: Bool { self == .null }

    /// The JSON type name, for error messages.
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
