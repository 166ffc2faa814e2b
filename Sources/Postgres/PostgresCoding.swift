public import Foundation

/// A Swift value that can be sent as a query parameter.
public protocol PostgresEncodable: Sendable {
    var postgresBind: PostgresBind { get }
}

/// A Swift value that can be read from a column's text output. NULL is handled by `Optional`.
public protocol PostgresDecodable {
    init(postgresText: String) throws
}

/// Lets generic decoding turn NULL into `nil` without knowing that `T` is an `Optional`.
@usableFromInline
protocol PostgresNullDecodable {
    static var postgresNull: Self { get }
}

extension Optional: PostgresNullDecodable {
    @usableFromInline static var postgresNull: Self { .none }
}

/// Decodes one text value, or NULL when `T` is optional.
@inlinable
func decodePostgresValue<T: PostgresDecodable>(_ text: String?, as type: T.Type) throws -> T {
    guard let text else {
        if let optional = T.self as? any PostgresNullDecodable.Type, let null = optional.postgresNull as? T {
            return null
        }
        throw PostgresError.decoding(column: "", message: "NULL where \(T.self) was expected")
    }
    return try T(postgresText: text)
}

@usableFromInline
func decodingFailure(_ text: String, as type: Any.Type) -> PostgresError {
    let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return .decoding(column: "", message: "'\(shown)' is not a valid \(type)")
}

// MARK: - Optional

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresBind: PostgresBind { self?.postgresBind ?? .null }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    @inlinable
    public init(postgresText: String) throws {
        self = .some(try Wrapped(postgresText: postgresText))
    }
}

// MARK: - Text and numbers

extension String: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: self) }
    public init(postgresText: String) { self = postgresText }
}

/// Integers are decimal text both ways.
func decodeInteger<T: FixedWidthInteger>(_ text: String, as type: T.Type) throws -> T {
    guard let value = T(text) else { throw decodingFailure(text, as: T.self) }
    return value
}

extension Int: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self)) }
    public init(postgresText: String) throws { self = try decodeInteger(postgresText, as: Int.self) }
}

extension Int64: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self)) }
    public init(postgresText: String) throws { self = try decodeInteger(postgresText, as: Int64.self) }
}

extension Int32: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self)) }
    public init(postgresText: String) throws { self = try decodeInteger(postgresText, as: Int32.self) }
}

extension Int16: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self)) }
    public init(postgresText: String) throws { self = try decodeInteger(postgresText, as: Int16.self) }
}

/// Needed so `[UInt8]` is an array of encodables (it binds as `bytea`); a lone `UInt8` is an integer.
extension UInt8: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: String(self)) }
    public init(postgresText: String) throws { self = try decodeInteger(postgresText, as: UInt8.self) }
}

extension Double: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind {
        if isNaN { return PostgresBind(text: "NaN") }
        if isInfinite { return PostgresBind(text: self < 0 ? "-Infinity" : "Infinity") }
        return PostgresBind(text: description)  // shortest text that round-trips
    }

    public init(postgresText: String) throws {
        switch postgresText {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default:
            guard let value = Double(postgresText) else { throw decodingFailure(postgresText, as: Double.self) }
            self = value
        }
    }
}

extension Bool: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: self ? "true" : "false") }

    public init(postgresText: String) throws {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw decodingFailure(postgresText, as: Bool.self)
        }
    }
}

extension UUID: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: uuidString.lowercased()) }

    public init(postgresText: String) throws {
        guard let value = UUID(uuidString: postgresText) else { throw decodingFailure(postgresText, as: UUID.self) }
        self = value
    }
}

/// `timestamptz`: ISO 8601 with microseconds and `Z` out, PostgreSQL's ISO output style in.
extension Date: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: PostgresTimestamp.format(self)) }

    public init(postgresText: String) throws {
        guard let value = PostgresTimestamp.parse(postgresText) else { throw decodingFailure(postgresText, as: Date.self) }
        self = value
    }
}

/// `bytea` in hex format.
extension Data: PostgresEncodable, PostgresDecodable {
    public var postgresBind: PostgresBind { PostgresBind(text: PostgresBytea.format(self)) }

    public init(postgresText: String) throws {
        guard let bytes = PostgresBytea.parse(postgresText) else { throw decodingFailure(postgresText, as: Data.self) }
        self = Data(bytes)
    }
}

// MARK: - Arrays

/// `[UInt8]` is `bytea`; every other array is a one-dimensional PostgreSQL array literal,
/// so `WHERE id = ANY(\(ids))` binds a single parameter.
extension Array: PostgresEncodable where Element: PostgresEncodable {
    public var postgresBind: PostgresBind {
        if Element.self == UInt8.self, let bytes = self as? [UInt8] {  // (an empty [Int] casts to [UInt8] too)
            return PostgresBind(text: PostgresBytea.format(bytes))
        }
        return PostgresBind(text: PostgresArrayLiteral.format(map(\.postgresBind.text)))
    }
}

extension Array: PostgresDecodable where Element: PostgresDecodable {
    @inlinable
    public init(postgresText: String) throws {
        if Element.self == UInt8.self {
            guard let bytes = PostgresBytea.parse(postgresText) else { throw decodingFailure(postgresText, as: [UInt8].self) }
            self = bytes as! [Element]
            return
        }
        guard let elements = PostgresArrayLiteral.parse(postgresText) else {
            throw decodingFailure(postgresText, as: [Element].self)
        }
        self = try elements.map { try decodePostgresValue($0, as: Element.self) }
    }
}
