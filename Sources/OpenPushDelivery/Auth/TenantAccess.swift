import OpenPushCore
package import Postgres

/// What a shared demo tenant's REST key may address. Its reads and sends are already scoped to
/// the devices linked to it; these checks turn naming something that is not its own into a
/// `403` (rather than a `404`, or a send that silently reaches nobody). Every check passes for
/// a key without a tenant.
package enum TenantAccess {
    /// Send targeting by explicit ids (`include_subscription_ids`, or `include_aliases` with
    /// `subscription_id`): every named device of the app must be linked to the tenant. Ids the
    /// app does not have select nothing, as for any key.
    static func requireOwnSubscriptions(_ ids: [String], appID: String, tenantID: String?,
                                        in connection: PostgresConnection) throws {
        guard let tenantID, !ids.isEmpty else { return }
        let foreign = try connection.query("""
            SELECT id FROM subscriptions
            WHERE app_id = \(appID) AND id = ANY(\(ids)::text[]) AND tenant_id IS DISTINCT FROM \(tenantID)
            ORDER BY id LIMIT 1
            """)
        if let id = try foreign.first?.decode("id", as: String.self) {
            throw APIError(status: 403, "subscription '\(id)' belongs to another tenant of this app")
        }
    }

    /// Update or end of an activity id the tenant's devices do not hold (call it when the
    /// tenant's audience is empty): `403` when devices outside the tenant hold it, so the
    /// tenant learns it is not its activity rather than that it has ended.
    package static func requireNotForeignActivity(_ activityID: String, appID: String, tenantID: String?,
                                          in connection: PostgresConnection) throws {
        guard let tenantID else { return }
        let foreign = try connection.query("""
            SELECT 1 FROM live_activities la JOIN subscriptions s ON s.id = la.subscription_id
            WHERE la.app_id = \(appID) AND la.activity_id = \(activityID) AND s.tenant_id IS DISTINCT FROM \(tenantID)
            LIMIT 1
            """)
        if !foreign.isEmpty {
            throw APIError(status: 403, "live activity '\(activityID)' belongs to another tenant of this app")
        }
    }

    /// Users have no tenant: they are the app's, tied to devices by `external_id`. A tenant
    /// addresses a user through its devices — the user must have a live device linked to the
    /// tenant and none linked elsewhere (unlinked devices belong to nobody and do not count).
    package static func requireOwnUser(_ userID: String, appID: String, tenantID: String?,
                               in connection: PostgresConnection) throws {
        guard let tenantID else { return }
        let row = try connection.query("""
            SELECT count(*) FILTER (WHERE s.tenant_id = \(tenantID))::int AS own,
                   count(*) FILTER (WHERE s.tenant_id <> \(tenantID))::int AS foreign
            FROM subscriptions s
            JOIN user_aliases a ON a.app_id = s.app_id AND a.label = \(AliasLabel.externalID) AND a.value = s.external_id
            WHERE s.app_id = \(appID) AND a.user_id = \(userID) AND s.retired_at IS NULL
            """)[0]
        if try row.decode("foreign", as: Int.self) > 0 {
            throw APIError(status: 403, "this user belongs to another tenant of this app")
        }
        if try row.decode("own", as: Int.self) == 0 {
            throw APIError(status: 403, "this user has no device linked to this tenant")
        }
    }
}
