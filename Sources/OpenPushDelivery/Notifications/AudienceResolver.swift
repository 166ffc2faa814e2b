package import OpenPushCore
package import Postgres

/// Who a send targets among one app's reachable subscriptions (enabled, not retired, and a
/// shared-demo tenant's own).
package enum TargetedAudience {
    /// A condition on `subscriptions s` (segments and filters): a query over the table applies
    /// it to the rows it reads, rather than joining the table to itself.
    case matching(PostgresQuery)
    /// A query yielding their ids (devices named by id or by alias).
    case ids(PostgresQuery)

    /// A subquery `SELECT s.id FROM subscriptions s WHERE …`, to join against.
    package var idQuery: PostgresQuery {
        switch self {
        case .matching(let condition): SegmentAudience.selectIDs(where: condition)
        case .ids(let query): query
        }
    }
}

/// One targeting method of a send, as a `TargetedAudience`. A tenant naming another tenant's
/// device by id is refused (`403`) rather than skipped.
package enum AudienceResolver {
    package static func targeted(_ targeting: AudienceTargeting, appID: String, tenantID: String?, now: Double,
                         in connection: PostgresConnection) throws -> TargetedAudience {
        try TenantAccess.requireOwnSubscriptions(namedSubscriptionIDs(targeting), appID: appID, tenantID: tenantID,
                                                 in: connection)
        switch targeting {
        case .aliases(let targets):
            let aliases = Dictionary(targets.map { ($0.label, $0.values) }, uniquingKeysWith: +)
            return .ids(AudienceStore.subscriptionIDs(appID: appID, includeAliases: aliases, tenantID: tenantID))
        case .subscriptionIDs(let ids):
            return .ids(AudienceStore.subscriptionIDs(appID: appID, includeSubscriptionIDs: ids, tenantID: tenantID))
        case .segments(let included, let excluded):
            return .matching(try SegmentAudience.condition(appID: appID, tenantID: tenantID, included: included,
                                                           excluded: excluded, now: now, in: connection))
        case .filters(let expression):
            return .matching(SegmentAudience.condition(appID: appID, tenantID: tenantID, filters: expression, now: now))
        }
    }

    /// The subscription ids a targeting names outright.
    static func namedSubscriptionIDs(_ targeting: AudienceTargeting) -> [String] {
        switch targeting {
        case .aliases(let targets): AudienceAliases(targets).subscriptionIDs
        case .subscriptionIDs(let ids): ids
        case .segments, .filters: []
        }
    }
}
