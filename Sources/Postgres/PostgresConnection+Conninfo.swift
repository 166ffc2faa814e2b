import CPostgres
import Foundation

/// Connection strings (key=value or URI): rewriting, parsing and quoting them.
extension PostgresConnection {
    /// Rewrites `conninfo` (key=value or URI) with another database, keeping everything else.
    public static func conninfo(_ conninfo: String, database: String) throws -> String {
        try Self.conninfo(conninfo, replacing: ["dbname": database])
    }

    /// Rewrites `conninfo` (key=value or URI) with the given keywords replaced or added, and
    /// those in `removing` left out.
    public static func conninfo(_ conninfo: String, replacing replacements: [String: String],
                                removing removed: Set<String> = []) throws -> String {
        var parts: [String] = []
        for (key, value) in try conninfoValues(conninfo) where replacements[key] == nil && !removed.contains(key) {
            parts.append("\(key)=\(quoteConninfoValue(value))")
        }
        for (key, value) in replacements.sorted(by: { $0.key < $1.key }) {
            parts.append("\(key)=\(quoteConninfoValue(value))")
        }
        return parts.joined(separator: " ")
    }

    /// The keywords `conninfo` (key=value or URI) sets, in libpq's order; unset ones are left out.
    public static func conninfoValues(_ conninfo: String) throws -> [(key: String, value: String)] {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            let message = error.map { String(cString: $0) } ?? "invalid connection string"
            PQfreemem(error)
            throw PostgresError.connectionFailure(message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { PQconninfoFree(options) }
        var values: [(key: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                values.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        return values
    }

    /// Quotes a conninfo value only when needed: `'…'` with `\` and `'` escaped.
    public static func quoteConninfoValue(_ value: String) -> String {
        let plain = !value.isEmpty && !value.contains { $0 == " " || $0 == "'" || $0 == "\\" || $0.isWhitespace }
        if plain { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
