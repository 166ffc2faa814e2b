import OpenPushCore
package import Postgres

extension BuiltInSegment.Rule {
    /// The rule as a boolean over `subscriptions s`, built from the filter language's
    /// `last_session` so both mean the same thing. Pure: `now` is given. `last_session_at` is
    /// never NULL, so the condition is two-valued and `NOT` is its exact complement.
    package func condition(now: Double) -> PostgresQuery {
        switch self {
        case .everyone:
            return "true"
        case .sessionWithin(let hours):
            return FilterSQL.condition(.lastSession(.lessThan, hoursAgo: hours), now: now)
        case .noSessionWithin(let hours):
            return "NOT (" + FilterSQL.condition(.lastSession(.lessThan, hoursAgo: hours), now: now) + ")"
        }
    }
}
