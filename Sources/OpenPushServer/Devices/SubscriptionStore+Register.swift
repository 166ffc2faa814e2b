package import OpenPushCore
import OpenPushDelivery
package import Postgres

/// What a registration did: the device's id, and whether its row is new.
package struct RegisteredSubscription: Sendable, Equatable {
    package var id: String
    package var created: Bool
}

extension SubscriptionStore {
    /// Registers or refreshes a device, in one transaction: the upsert (which counts a session
    /// and brings a retired row back to life), the supersede of `previousToken`'s subscription
    /// (its link and extra tokens go to the new one), and the user its `external_id` names.
    ///
    /// On a shared demo app a device already linked to a tenant — the token's or the previous
    /// token's — can only be changed with its `X-OP-Device-Key` (`deviceKey`); otherwise any
    /// holder of the shared SDK key could take it over.
    package static func register(_ registration: SubscriptionRegistration, app: AppRecord, deviceKey: String?,
                                now: Double, in database: PostgresPool) async throws -> RegisteredSubscription {
        let newID = Identifier.make(prefix: "sub", now: now, random: KeyMaterial.identifierEntropy())
        let appID = app.id
        return try await database.transaction { connection in
            if app.sharedDemo {
                for token in [registration.token, registration.previousToken].compactMap({ $0 }) {
                    try requireDeviceKeyIfLinked(token: token, appID: appID, deviceKey: deviceKey, in: connection)
                }
            }
            // Only a change that sets tags can take their count over the bound; it locks the row first.
            let assignsTags = registration.tags.assignsKeys
            let tagsBefore = assignsTags ? try TagBound.lockedCount("subscriptions WHERE app_id = \(appID) AND token = \(registration.token)",
                                                                 in: connection) : 0
            let (registered, tagsAfter) = try upsert(registration, id: newID, appID: appID, now: now, in: connection)
            if assignsTags { try TagBound.check(before: tagsBefore, after: tagsAfter, holder: .device) }
            try applyPrivacy(registration, subscriptionID: registered.id, in: connection)
            try applyAttention(id: registered.id, appID: appID, quietHours: registration.quietHours,
                               mutedThreads: registration.mutedThreads, in: connection)
            if let previousToken = registration.previousToken, previousToken != registration.token,
               let previous = try find(token: previousToken, appID: appID, in: connection) {
                try retire(subscriptionID: previous.id, supersededBy: registered.id, now: now, in: connection)
                try inheritLink(from: previous.id, to: registered.id, in: connection)
                try moveExtraTokens(from: previous.id, to: registered.id, in: connection)
            }
            if let externalID = registration.externalID, !externalID.isEmpty {
                try UserStore.ensureUser(externalID: externalID, appID: appID, now: now, in: connection)
            }
            return registered
        }
    }

    /// `INSERT … ON CONFLICT (app_id, token) DO UPDATE`: atomic under concurrent registrations of
    /// one token. On conflict, fields that were sent overwrite, tags merge, and a session counts.
    /// Also returns the number of tag keys the row holds afterwards.
    private static func upsert(_ r: SubscriptionRegistration, id: String, appID: String, now: Double,
                               in connection: PostgresConnection) throws -> (RegisteredSubscription, tagCount: Int) {
        let rows = try connection.query("""
            INSERT INTO subscriptions (id, app_id, token, platform, environment, external_id, tags, language, country,
                                       timezone, app_version, device_model, device_os, enabled, widget_push_token,
                                       web_p256, web_auth, web_type, session_count, first_session_at, last_session_at, created_at, updated_at)
            VALUES (\(id), \(appID), \(r.token), COALESCE(\(r.platform)::text, 'ios'),
                    COALESCE(\(r.environment?.rawValue)::text, 'production'), NULLIF(\(r.externalID)::text, ''),
                    \(r.tags.setJSON)::jsonb, \(r.language), \(r.country), \(r.timezone), \(r.appVersion), \(r.deviceModel),
                    \(r.deviceOS), COALESCE(\(r.enabled)::boolean, true), \(r.widgetPushToken),
                    \(r.web?.p256dh), \(r.web?.auth), \(r.web.map { OneSignalSubscriptionType($0.browser).rawValue }), 1,
                    to_timestamp(\(now)), to_timestamp(\(now)), to_timestamp(\(now)), to_timestamp(\(now)))
            ON CONFLICT (app_id, token) DO UPDATE SET
                platform = COALESCE(\(r.platform)::text, subscriptions.platform),
                environment = COALESCE(\(r.environment?.rawValue)::text, subscriptions.environment),
                external_id = CASE WHEN \(r.externalID)::text IS NULL THEN subscriptions.external_id
                                   ELSE NULLIF(\(r.externalID)::text, '') END,
                tags = (subscriptions.tags || \(r.tags.setJSON)::jsonb) - \(r.tags.removed)::text[],
                language = COALESCE(\(r.language)::text, subscriptions.language),
                country = COALESCE(\(r.country)::text, subscriptions.country),
                timezone = COALESCE(\(r.timezone)::text, subscriptions.timezone),
                app_version = COALESCE(\(r.appVersion)::text, subscriptions.app_version),
                device_model = COALESCE(\(r.deviceModel)::text, subscriptions.device_model),
                device_os = COALESCE(\(r.deviceOS)::text, subscriptions.device_os),
                enabled = COALESCE(\(r.enabled)::boolean, subscriptions.enabled),
                widget_push_token = COALESCE(\(r.widgetPushToken)::text, subscriptions.widget_push_token),
                -- A browser re-subscribing on the same endpoint may bring new keys.
                web_p256 = COALESCE(\(r.web?.p256dh)::text, subscriptions.web_p256),
                web_auth = COALESCE(\(r.web?.auth)::text, subscriptions.web_auth),
                web_type = COALESCE(\(r.web.map { OneSignalSubscriptionType($0.browser).rawValue })::text, subscriptions.web_type),
                -- The device says this token is current again: ordinary pushes may reach it.
                token_invalid_at = NULL,
                session_count = subscriptions.session_count + 1,
                last_session_at = to_timestamp(\(now)),
                retired_at = NULL,
                superseded_by = NULL,
                updated_at = to_timestamp(\(now))
            RETURNING id, (xmax = 0) AS created, \(TagBound.count)
            """)
        guard let row = rows.first else { throw InvariantViolation("an upsert returned no row") }
        return (RegisteredSubscription(id: try row.decode("id"), created: try row.decode("created")),
                try row.decode("tag_count"))
    }

    private static func requireDeviceKeyIfLinked(token: String, appID: String, deviceKey: String?,
                                                 in connection: PostgresConnection) throws {
        let rows = try connection.query("""
            SELECT device_key_digest FROM subscriptions WHERE app_id = \(appID) AND token = \(token)
            """)
        guard let digest = try rows.first?.decode("device_key_digest", as: [UInt8]?.self) else { return }
        guard let deviceKey, KeyMaterial.matches(deviceKey, digest: digest) else {
            throw APIError(status: 401, NativeDevice.missingDeviceKey)
        }
    }

    /// A token refresh keeps the device's shared-demo link: tenant and device key carry over.
    private static func inheritLink(from previousID: String, to newID: String, in connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE subscriptions n
            SET tenant_id = COALESCE(n.tenant_id, o.tenant_id),
                device_key_digest = COALESCE(n.device_key_digest, o.device_key_digest)
            FROM subscriptions o
            WHERE n.id = \(newID) AND o.id = \(previousID)
            """)
    }
}
