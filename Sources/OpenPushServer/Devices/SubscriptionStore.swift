import OpenPushCore
package import OpenPushDelivery
package import Postgres

/// The devices of an app. Every lookup is scoped by app id, so one app never reaches another's rows.
package enum SubscriptionStore {
    package static func find(id: String, appID: String, in connection: PostgresConnection) throws -> SubscriptionRecord? {
        try connection.query(SubscriptionRecord.columns + " WHERE s.app_id = \(appID) AND s.id = \(id)")
            .first.map(SubscriptionRecord.init(row:))
    }

    package static func find(token: String, appID: String, in connection: PostgresConnection) throws -> SubscriptionRecord? {
        try connection.query(SubscriptionRecord.columns + " WHERE s.app_id = \(appID) AND s.token = \(token)")
            .first.map(SubscriptionRecord.init(row:))
    }

    /// The live (not retired) devices carrying a user's `external_id`, oldest first.
    package static func live(externalID: String, appID: String, in connection: PostgresConnection) throws -> [SubscriptionRecord] {
        try connection.query(SubscriptionRecord.columns + """
             WHERE s.app_id = \(appID) AND s.external_id = \(externalID) AND s.retired_at IS NULL ORDER BY s.id
            """).map(SubscriptionRecord.init(row:))
    }

    /// Retires a device: it gets no more pushes and no longer belongs to its user's devices.
    /// `supersededBy` names the subscription that replaced it after a token refresh. Retiring
    /// twice keeps the first time. Every retirement — `/v1/…/retire`, `DELETE` and supersede —
    /// goes through here.
    package static func retire(subscriptionID: String, supersededBy: String? = nil, now: Double,
                              in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE subscriptions
            SET retired_at = COALESCE(retired_at, to_timestamp(\(now))),
                superseded_by = COALESCE(\(supersededBy)::text, superseded_by),
                updated_at = to_timestamp(\(now))
            WHERE id = \(subscriptionID)
            """)
        // The contract's subscription lifecycle: a retired or superseded device's open Live
        // Activities close with it, in the caller's transaction.
        try LiveActivityStore.closeAll(subscriptionID: subscriptionID, now: now, in: connection)
    }
}
