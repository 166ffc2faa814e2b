package import OpenPushCore
package import Postgres

/// Compiles a `FilterExpression` into a boolean SQL expression over `subscriptions s`.
///
/// Pure: no I/O, and time comes from `now` (unix seconds), never `now()` in SQL, so a test
/// controls it. Every value — tag keys included — is a bind; only operators and column names
/// chosen here are SQL text. Each condition is two-valued (never NULL), so an expression can be
/// negated safely (`excluded_segments`).
package enum FilterSQL {
    package static func condition(_ expression: FilterExpression, now: Double) -> PostgresQuery {
        guard !expression.groups.isEmpty else { return "false" }
        let groups = expression.groups.map { group -> PostgresQuery in
            "(" + group.map { condition($0, now: now) }.joined(separator: " AND ") + ")"
        }
        return "(" + groups.joined(separator: " OR ") + ")"
    }

    static func condition(_ condition: FilterCondition, now: Double) -> PostgresQuery {
        switch condition {
        case .tag(let key, let test):
            return tag(key, test, now: now)
        case .language(let test):
            return text("lower(s.language)", test.lowercased)
        case .country(let test):
            return text("lower(s.country)", test.lowercased)
        case .appVersion(.text(let test)):
            return text("s.app_version", test)
        case .appVersion(.version(let comparison, let version)):
            return "coalesce(openpush_filter_version(s.app_version) \(comparison.sql) "
                + "openpush_filter_version(\(version)), false)"
        case .sessionCount(let test):
            return sessionCount(test)
        case .lastSession(let comparison, let hoursAgo):
            return sessionAge("s.last_session_at", comparison, hoursAgo: hoursAgo, now: now)
        case .firstSession(let comparison, let hoursAgo):
            return sessionAge("s.first_session_at", comparison, hoursAgo: hoursAgo, now: now)
        }
    }

    private static func tag(_ key: String, _ test: TagTest, now: Double) -> PostgresQuery {
        switch test {
        case .text(let test):
            return text("(s.tags ->> \(key)::text)", test)
        case .number(let comparison, let number):
            return "coalesce(openpush_filter_number(s.tags ->> \(key)::text) \(comparison.sql) \(number)::numeric, false)"
        case .timeElapsed(let comparison, let seconds):
            // More than `seconds` since the stamp means the stamp is before `now - seconds`.
            let threshold = now - seconds
            return "coalesce(openpush_filter_number(s.tags ->> \(key)::text) \(comparison.flipped.sql) \(threshold)::numeric, false)"
        }
    }

    /// A missing or empty attribute differs from every value and exists for no filter.
    private static func text(_ column: PostgresQuery, _ test: TextTest) -> PostgresQuery {
        switch test {
        case .equals(let value): "coalesce(\(column) = \(value), false)"
        case .notEquals(let value): "coalesce(\(column) <> \(value), true)"
        case .exists: "coalesce(\(column) <> '', false)"
        case .notExists: "coalesce(\(column) = '', true)"
        case .inArray(let values): "coalesce(\(column) = ANY(\(values)::text[]), false)"
        case .notInArray(let values): "NOT coalesce(\(column) = ANY(\(values)::text[]), false)"
        }
    }

    private static func sessionCount(_ test: NumberTest) -> PostgresQuery {
        switch test {
        case .equals(let number): "s.session_count = \(number)::numeric"
        case .notEquals(let number): "s.session_count <> \(number)::numeric"
        case .greaterThan(let number): "s.session_count > \(number)::numeric"
        case .lessThan(let number): "s.session_count < \(number)::numeric"
        }
    }

    /// `>` N hours ago: the session is older than `now - N h`, so its timestamp is smaller.
    private static func sessionAge(_ column: PostgresQuery, _ comparison: Comparison, hoursAgo: Double,
                                   now: Double) -> PostgresQuery {
        let threshold = now - hoursAgo * 3600
        return "\(column) \(comparison.flipped.sql) to_timestamp(\(threshold))"
    }
}

extension Comparison {
    /// The operator as SQL text: one of two fixed strings, never a value.
    fileprivate var sql: PostgresQuery { PostgresQuery(unsafeSQL: rawValue) }

    /// "More than N ago" is "a timestamp before now − N": the comparison turns around.
    fileprivate var flipped: Comparison { self == .greaterThan ? .lessThan : .greaterThan }
}

extension TextTest {
    /// Language and country compare case-insensitively: the column is lowered in SQL, the values here.
    fileprivate var lowercased: TextTest {
        switch self {
        case .equals(let value): .equals(value.lowercased())
        case .notEquals(let value): .notEquals(value.lowercased())
        case .exists, .notExists: self
        case .inArray(let values): .inArray(values.map { $0.lowercased() })
        case .notInArray(let values): .notInArray(values.map { $0.lowercased() })
        }
    }
}
