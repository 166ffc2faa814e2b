package import OpenPushCore
import OpenPushDelivery
package import Postgres

extension SubscriptionStore {
    /// `create_subscription`'s write, in the caller's transaction: a new device of the user whose
    /// `external_id` is given, or — the token already registered in this app — that device,
    /// which keeps its id and moves to the user (OneSignal's behaviour). A deleted (retired)
    /// device comes back. Fields not sent keep what the row had; a new row counts one session,
    /// as a registration does.
    package static func create(_ c: SubscriptionCreation, externalID: String, appID: String, now: Double,
                              in connection: PostgresConnection) throws -> RegisteredSubscription {
        let id = Identifier.make(prefix: "sub", now: now, random: KeyMaterial.identifierEntropy())
        let f = c.fields
        let platform = c.type.platform ?? "ios"
        let rows = try connection.query("""
            INSERT INTO subscriptions (id, app_id, token, platform, environment, external_id, app_version, device_model,
                                       device_os, enabled, notification_types, sdk, session_time, web_p256, web_auth, web_type,
                                       session_count,
                                       first_session_at, last_session_at, created_at, updated_at)
            VALUES (\(id), \(appID), \(c.token), \(platform), COALESCE(\(f.environment?.rawValue)::text, 'production'),
                    \(externalID), \(f.appVersion), \(f.deviceModel), \(f.deviceOS), COALESCE(\(f.subscribed)::boolean, true),
                    \(f.notificationTypes)::integer,
                    \(f.sdk), \(f.sessionTime)::bigint, \(f.web?.p256dh), \(f.web?.auth),
                    \(f.web.map { OneSignalSubscriptionType($0.browser).rawValue }), 1, to_timestamp(\(now)), to_timestamp(\(now)), to_timestamp(\(now)), to_timestamp(\(now)))
            ON CONFLICT (app_id, token) DO UPDATE SET
                -- iOSPush names a watchOS device too: it stays one.
                platform = CASE WHEN subscriptions.platform = 'watchos' AND EXCLUDED.platform = 'ios' THEN 'watchos'
                                ELSE EXCLUDED.platform END,
                environment = COALESCE(\(f.environment?.rawValue)::text, subscriptions.environment),
                external_id = EXCLUDED.external_id,
                app_version = COALESCE(\(f.appVersion)::text, subscriptions.app_version),
                device_model = COALESCE(\(f.deviceModel)::text, subscriptions.device_model),
                device_os = COALESCE(\(f.deviceOS)::text, subscriptions.device_os),
                enabled = COALESCE(\(f.subscribed)::boolean, subscriptions.enabled),
                notification_types = CASE WHEN \(f.subscribed)::boolean IS NULL THEN subscriptions.notification_types
                                          ELSE EXCLUDED.notification_types END,
                sdk = COALESCE(\(f.sdk)::text, subscriptions.sdk),
                session_time = COALESCE(\(f.sessionTime)::bigint, subscriptions.session_time),
                web_p256 = COALESCE(EXCLUDED.web_p256, subscriptions.web_p256),
                web_auth = COALESCE(EXCLUDED.web_auth, subscriptions.web_auth),
                web_type = COALESCE(EXCLUDED.web_type, subscriptions.web_type),
                retired_at = NULL,
                superseded_by = NULL,
                updated_at = to_timestamp(\(now))
            RETURNING id, (xmax = 0) AS created
            """)
        guard let row = rows.first else { throw InvariantViolation("a subscription upsert returned no row") }
        return RegisteredSubscription(id: try row.decode("id"), created: try row.decode("created"))
    }

    /// `transfer_subscription`'s write: the device now belongs to the user of `externalID`.
    package static func setOwner(id: String, appID: String, externalID: String, now: Double,
                                in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE subscriptions SET external_id = \(externalID), updated_at = to_timestamp(\(now))
            WHERE app_id = \(appID) AND id = \(id)
            """)
    }
}
