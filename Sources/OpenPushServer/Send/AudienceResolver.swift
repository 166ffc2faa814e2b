import OpenPushCore
import Postgres

/// One targeting method of a send, as a subquery `SELECT s.id FROM subscriptions s WHERE …` of
/// the app's reachable subscriptions (enabled, not retired, and a shared-demo tenant's own).
/// A tenant naming another tenant's device by id is refused (`403`) rather than skipped.
enum AudienceResolver {
    static func targeted(_ targeting: AudienceTargeting, appID: String, tenantID: String?, now: Double,
                         in connection: PostgresConnection) throws -> PostgresQuery {
        try TenantAccess.requireOwnSubscriptions(namedSubscriptionIDs(targeting), appID: appID, tenantID: tenantID,
                                                 in: connection)
        switch targeting {
        case .aliases(let targets):
            let aliases = Dictionary(targets.map { ($0.label, $0.values) }, uniquingKeysWith: +)
            return AudienceStore.subscriptionIDs(appID: appID, includeAliases: aliases, tenantID: tenantID)
        case .subscriptionIDs(let ids):
            return AudienceStore.subscriptionIDs(appID: appID, includeSubscriptionIDs: ids, tenantID: tenantID)
        case .segments(let included, let excluded):
            return try SegmentAudience.subscriptionIDs(appID: appID, tenantID: tenantID, included: included,
                                                       excluded: excluded, now: now, in: connection)
        case .filters(let expression):
            return SegmentAudience.subscriptionIDs(appID: appID, tenantID: tenantID, filters: expression, now: now)
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
