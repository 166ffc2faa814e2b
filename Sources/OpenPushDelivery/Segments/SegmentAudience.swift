package import OpenPushCore
package import Postgres

/// Turns the send routes' targeting by segment names or raw filters into a subquery
/// `SELECT s.id FROM subscriptions s WHERE …` of one app's reachable subscriptions: enabled, not
/// retired, and — for a shared demo tenant's key — linked to that tenant. Always restricted to
/// the app, whatever a filter says.
package enum SegmentAudience {
    /// `included_segments` (OR-ed) minus `excluded_segments`. Built-in names (`Subscribed Users`,
    /// `All`, `Active Users`, `Inactive Users`) follow their `BuiltInSegment.rule`. Unknown names
    /// are one `400` naming each: `segment 'x' not found`.
    package static func subscriptionIDs(appID: String, tenantID: String? = nil, included: [String], excluded: [String] = [],
                                       now: Double, in connection: PostgresConnection) throws -> PostgresQuery {
        selectIDs(where: try condition(appID: appID, tenantID: tenantID, included: included, excluded: excluded, now: now,
                                       in: connection))
    }

    /// The send routes' `filters` targeting: the same subquery for a filter array.
    package static func subscriptionIDs(appID: String, tenantID: String? = nil, filters: FilterExpression,
                                       now: Double) -> PostgresQuery {
        selectIDs(where: condition(appID: appID, tenantID: tenantID, filters: filters, now: now))
    }

    /// `subscriptionIDs`' condition on `subscriptions s` alone, for a query that reads the
    /// table itself rather than joining it to the subquery (a notification's pages).
    package static func condition(appID: String, tenantID: String? = nil, included: [String], excluded: [String] = [],
                                 now: Double, in connection: PostgresConnection) throws -> PostgresQuery {
        let conditions = try conditions(named: included + excluded, appID: appID, now: now, in: connection)
        var query = reachable(appID: appID, tenantID: tenantID)
        query.append(" AND " + anyOf(included.compactMap { conditions[$0] }))
        if !excluded.isEmpty {
            query.append(" AND NOT " + anyOf(excluded.compactMap { conditions[$0] }))
        }
        return query
    }

    package static func condition(appID: String, tenantID: String? = nil, filters: FilterExpression, now: Double) -> PostgresQuery {
        reachable(appID: appID, tenantID: tenantID) + " AND " + FilterSQL.condition(filters, now: now)
    }

    static func selectIDs(where condition: PostgresQuery) -> PostgresQuery {
        "SELECT s.id FROM subscriptions s WHERE " + condition
    }

    static func reachable(appID: String, tenantID: String?) -> PostgresQuery {
        var query: PostgresQuery = "s.app_id = \(appID) AND s.enabled AND s.retired_at IS NULL"
        if let tenantID {
            query.append(" AND s.tenant_id = \(tenantID)")
        }
        return query
    }

    /// Each distinct name's condition; throws the `400` when any name is not a segment of the app.
    static func conditions(named names: [String], appID: String, now: Double,
                           in connection: PostgresConnection) throws -> [String: PostgresQuery] {
        var conditions: [String: PostgresQuery] = [:]
        for name in names {
            if let builtIn = BuiltInSegment(named: name) { conditions[name] = builtIn.rule.condition(now: now) }
        }
        // A built-in name always means the built-in segment, even where an older saved one has it.
        let savedNames = names.filter { BuiltInSegment(named: $0) == nil }
        let saved = savedNames.isEmpty ? [] : try SegmentStore.find(named: savedNames, appID: appID, in: connection)
        for segment in saved {
            guard case .success(let expression) = FilterParser.parse(segment.filters) else {
                throw InvariantViolation("segment \(segment.id) holds filters that no longer parse")
            }
            conditions[segment.name] = FilterSQL.condition(expression, now: now)
        }
        var unknown: [String] = []
        for name in names where conditions[name] == nil && !unknown.contains(name) {
            unknown.append(name)
        }
        guard unknown.isEmpty else {
            throw APIError(status: 400, messages: unknown.map { "segment '\($0)' not found" })
        }
        return conditions
    }

    /// `(a OR b)`; nothing at all matches none.
    private static func anyOf(_ conditions: [PostgresQuery]) -> PostgresQuery {
        conditions.isEmpty ? "false" : "(" + conditions.joined(separator: " OR ") + ")"
    }
}
