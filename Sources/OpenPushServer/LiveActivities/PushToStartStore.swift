import OpenPushCore
import OpenPushDelivery
package import Postgres

/// The `push_to_start_tokens` table: one standing token per (app, device, activity type),
/// with no expiry.
package enum PushToStartStore {
    /// Inserts or replaces the device's token for a type; returns the row id and whether it is new.
    package static func register(appID: String, subscriptionID: String, activityType: String, token: String, now: Double,
                                in connection: PostgresConnection) throws -> (id: String, created: Bool) {
        let id = Identifier.make(prefix: "pts", now: now, random: KeyMaterial.identifierEntropy())
        let row = try connection.query("""
            INSERT INTO push_to_start_tokens AS p (id, app_id, subscription_id, activity_type, token, created_at, updated_at)
            VALUES (\(id), \(appID), \(subscriptionID), \(activityType), \(token), to_timestamp(\(now)), to_timestamp(\(now)))
            ON CONFLICT (app_id, subscription_id, activity_type) DO UPDATE SET
                token = EXCLUDED.token, updated_at = EXCLUDED.updated_at
            RETURNING p.id, (p.xmax = 0) AS created
            """)[0]
        return (try row.decode("id"), try row.decode("created"))
    }

    /// False when the device had no token for that type.
    package static func remove(appID: String, subscriptionID: String, activityType: String,
                              in connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            DELETE FROM push_to_start_tokens
            WHERE app_id = \(appID) AND subscription_id = \(subscriptionID) AND activity_type = \(activityType)
            """).affectedRows > 0
    }

    /// APNs rejected a push-to-start token: unlike an update token, the row is deleted.
    @discardableResult
    package static func deleteDeadToken(rowID: String, in connection: PostgresConnection) throws -> Bool {
        try connection.query("DELETE FROM push_to_start_tokens WHERE id = \(rowID)").affectedRows > 0
    }
}
