/// SQL as a value. Every interpolated value becomes a `$n` placeholder plus a bind, so a value
/// can never change the statement's text: injection is impossible by construction.
///
///     let query: PostgresQuery = "SELECT * FROM devices WHERE app_id = \(appID) AND token = ANY(\(tokens))"
public struct PostgresQuery: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var sql: String
    public var binds: [PostgresBind]
    /// Run as a named prepared statement of the session, parsed and planned once per connection
    /// (`prepared`). Off by default.
    public private(set) var reusesPlan = false

    /// For static SQL and migrations only: `sql` is sent as written.
    public init(unsafeSQL: String, binds: [PostgresBind] = []) {
        self.sql = unsafeSQL
        self.binds = binds
    }

    /// This query as a named prepared statement on connections that keep their session (a
    /// direct connection, `PostgresSettingsScope.session`): the first run on a connection
    /// prepares it (in the same round trip), later runs skip parsing and planning. For
    /// statements run over and over with the same text, whose plan does not depend on their
    /// values (after five runs PostgreSQL may settle on a generic plan). Behind a transaction
    /// pooler it runs unnamed, as every query does: the next transaction may land on a server
    /// connection that never saw the statement.
    public var prepared: PostgresQuery {
        var query = self
        query.reusesPlan = true
        return query
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// Appends a fragment, renumbering its placeholders after ours.
    public mutating func append(_ fragment: PostgresQuery) {
        sql += PostgresSQLScanner.shiftingPlaceholders(in: fragment.sql, by: binds.count)
        binds += fragment.binds
    }

    public static func + (lhs: PostgresQuery, rhs: PostgresQuery) -> PostgresQuery {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// `"name"` with embedded quotes doubled: safe for channel, table and database names.
    public static func quoteIdentifier(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Values stay out of the description so that logs never carry tokens or payloads.
    public var description: String {
        binds.isEmpty ? sql : "\(sql) [\(binds.count) bind\(binds.count == 1 ? "" : "s")]"
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql: String
        var binds: [PostgresBind]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + 3 * interpolationCount)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// Spelled out so the compiler does not warn about interpolating an optional: nil is NULL.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        public mutating func appendInterpolation(_ fragment: PostgresQuery) {
            sql += PostgresSQLScanner.shiftingPlaceholders(in: fragment.sql, by: binds.count)
            binds += fragment.binds
        }

        /// A quoted identifier, for names that cannot be parameters (LISTEN, CREATE DATABASE).
        public mutating func appendInterpolation(identifier: String) {
            sql += PostgresQuery.quoteIdentifier(identifier)
        }
    }
}

extension Array where Element == PostgresQuery {
    /// Joins fragments (e.g. `VALUES` tuples), renumbering placeholders.
    public func joined(separator: String) -> PostgresQuery {
        var result = PostgresQuery(unsafeSQL: "")
        for (index, fragment) in enumerated() {
            if index > 0 { result.sql += separator }
            result.append(fragment)
        }
        return result
    }
}
