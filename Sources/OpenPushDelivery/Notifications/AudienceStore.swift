package import OpenPushCore
package import Postgres

/// Turns a send's explicit targeting into subscriptions. The result is SQL, not ids, so a send
/// route composes it into the statement that writes its delivery rows, in one round trip:
///
///     "INSERT INTO deliveries (…) SELECT … FROM subscriptions WHERE id IN (\(AudienceStore.subscriptionIDs(…)))"
package enum AudienceStore {
    /// `SELECT s.id FROM subscriptions s WHERE …`: the enabled, not retired subscriptions of
    /// `appID` named by `include_aliases` and `include_subscription_ids` (a union). A tenant of a
    /// shared demo app reaches only its own devices. Nothing named selects nothing.
    package static func subscriptionIDs(appID: String, includeAliases: [String: [String]] = [:],
                                       includeSubscriptionIDs: [String] = [], tenantID: String? = nil) -> PostgresQuery {
        subscriptionIDs(appID: appID, aliases: AudienceAliases(includeAliases), includeSubscriptionIDs: includeSubscriptionIDs,
                        tenantID: tenantID)
    }

    /// The same, from the targets `AudienceTargeting.read` returns for `include_aliases`.
    package static func subscriptionIDs(appID: String, aliases: [AliasTarget], tenantID: String? = nil) -> PostgresQuery {
        subscriptionIDs(appID: appID, aliases: AudienceAliases(aliases), includeSubscriptionIDs: [], tenantID: tenantID)
    }

    private static func subscriptionIDs(appID: String, aliases: AudienceAliases, includeSubscriptionIDs: [String],
                                        tenantID: String?) -> PostgresQuery {
        var matches: [PostgresQuery] = []
        let subscriptionIDs = aliases.subscriptionIDs + includeSubscriptionIDs
        if !subscriptionIDs.isEmpty {
            matches.append("s.id = ANY(\(subscriptionIDs)::text[])")
        }
        if !aliases.externalIDs.isEmpty {
            matches.append("s.external_id = ANY(\(aliases.externalIDs)::text[])")
        }
        if !aliases.userIDs.isEmpty {
            matches.append(externalIDOfUsers("""
                SELECT u.id FROM users u WHERE u.app_id = \(appID) AND u.id = ANY(\(aliases.userIDs)::text[])
                """))
        }
        for (label, values) in aliases.custom {
            matches.append(externalIDOfUsers("""
                SELECT a.user_id FROM user_aliases a
                WHERE a.app_id = \(appID) AND a.label = \(label) AND a.value = ANY(\(values)::text[])
                """))
        }
        let named = matches.isEmpty ? "false" : matches.joined(separator: " OR ")
        var query: PostgresQuery = """
            SELECT s.id FROM subscriptions s
            WHERE s.app_id = \(appID) AND s.enabled AND s.retired_at IS NULL AND (\(named))
            """
        if let tenantID {
            query.append(" AND s.tenant_id = \(tenantID)")
        }
        return query
    }

    /// Subscriptions whose `external_id` is the `external_id` alias of one of `users`.
    private static func externalIDOfUsers(_ users: PostgresQuery) -> PostgresQuery {
        """
        s.external_id IN (SELECT e.value FROM user_aliases e
                          WHERE e.app_id = s.app_id AND e.label = \(AliasLabel.externalID) AND e.user_id IN (\(users)))
        """
    }
}
