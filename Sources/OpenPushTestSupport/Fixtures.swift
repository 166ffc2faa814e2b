import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
package import Postgres

/// Rows inserted straight into the database, for tests of routes that read them.
extension TestApp {
    /// A device of `appID` with `token` (hex). Returns the subscription id.
    @discardableResult
    package func insertSubscription(appID: String, token: String, externalID: String? = nil,
                                   deviceKey: String? = nil) async throws -> String {
        let id = Identifier.make(prefix: "sub", now: services.now(), random: KeyMaterial.identifierEntropy())
        let now = services.now()
        let digest = deviceKey.map(KeyMaterial.digest)
        try await services.database.query("""
            INSERT INTO subscriptions (id, app_id, token, external_id, first_session_at, last_session_at, device_key_digest)
            VALUES (\(id), \(appID), \(token.lowercased()), \(externalID), to_timestamp(\(now)), to_timestamp(\(now)), \(digest))
            """)
        return id
    }

    /// A sent Live Activity message with one delivery to `subscriptionID`. Returns the message id.
    @discardableResult
    package func insertLiveActivityPush(appID: String, subscriptionID: String, activityID: String,
                                       activityType: String? = nil, event: String = "update",
                                       at time: Double? = nil) async throws -> String {
        let now = time ?? services.now()
        let id = Identifier.make(prefix: "msg", now: now, random: KeyMaterial.identifierEntropy())
        try await services.database.transaction { connection in
            try connection.query("""
                INSERT INTO messages (id, app_id, kind, event, name, activity_type, activity_id, created_at)
                VALUES (\(id), \(appID), 'live_activity', \(event), 'test', \(activityType), \(activityID), to_timestamp(\(now)))
                """)
            try connection.query("""
                INSERT INTO delivery_rows (apns_id, message_id, app_id, subscription_id, token_kind, state, finished_at,
                                           created_at)
                VALUES (\(UUID()), \(id), \(appID), \(subscriptionID), 'update', 'accepted', to_timestamp(\(now)),
                        to_timestamp(\(now)))
                """)
            try connection.query("SELECT openpush_recount_deliveries(ARRAY[\(id)])")
            try connection.query("SELECT openpush_recount_delivery_stats(ARRAY[\(appID)])")
        }
        return id
    }

    /// Sets the counts `GET /notifications/{id}` reads (`counted_*` on `messages`) from the
    /// messages' records, and the stats rollup of their apps (`delivery_stats`) from the apps'
    /// records, for tests that write records in SQL rather than through the engine.
    package func recountDeliveries(_ messageIDs: [String]) async throws {
        try await services.database.query("SELECT openpush_recount_deliveries(\(messageIDs)::text[])")
        try await recountDeliveryStats(appsOf: messageIDs)
    }

    /// Sets the stats rollup (`delivery_stats`) of the apps in `appIDs` from their records.
    package func recountDeliveryStats(_ appIDs: [String]) async throws {
        try await services.database.query("SELECT openpush_recount_delivery_stats(\(appIDs)::text[])")
    }

    private func recountDeliveryStats(appsOf messageIDs: [String]) async throws {
        try await services.database.query("""
            SELECT openpush_recount_delivery_stats(
                (SELECT COALESCE(array_agg(DISTINCT app_id), '{}') FROM messages WHERE id = ANY(\(messageIDs)::text[])))
            """)
    }
}

extension TestApp {
    /// Every recipient waiting in a delivery job, one row each: `message_id`, `subscription_id`,
    /// `token_kind`, `token`, `live_activity_id`, `apns_id`. Use as `FROM \(TestApp.queuedRecipients)`.
    package static let queuedRecipients: PostgresQuery = """
        (SELECT j.message_id, r.subscription_id, j.token_kind, r.token, r.live_activity_id,
                openpush_apns_id(j.message_id, r.subscription_id, j.token_kind) AS apns_id
         FROM delivery_jobs j, unnest(j.subscription_ids, j.tokens, j.live_activity_ids)
              AS r(subscription_id, token, live_activity_id)) AS q
        """
}
