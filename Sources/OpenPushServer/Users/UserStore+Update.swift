import OpenPushCore
import OpenPushDelivery
import Postgres

extension UserStore {
    /// Purchases a user keeps for its view, the newest; `amount_spent` counts every one.
    static let keptPurchases = 100

    /// `update_user`: the properties, then the deltas, in the caller's transaction.
    static func update(userID: String, appID: String, tenantID: String?, _ update: UserUpdate, now: Double,
                       in connection: PostgresConnection) throws {
        try updateProperties(userID: userID, appID: appID, tenantID: tenantID, update.properties, now: now, in: connection)
        try add(update.deltas, userID: userID, in: connection)
    }

    /// Sent properties overwrite; tags merge (`""` removes one). Tags that would go over
    /// `TagLimits.maxKeys` are a `400`: the caller's transaction then stores nothing.
    ///
    /// Targeting reads a device's own tags, so a user's tag changes are applied to its live
    /// devices as well, in the same transaction: a tag set on the user reaches its devices'
    /// filters and templates, as OneSignal's user tags do. A shared demo tenant's key
    /// (`tenantID`) changes only the devices linked to it, the ones it sees.
    static func updateProperties(userID: String, appID: String, tenantID: String?, _ properties: UserProperties, now: Double,
                                 in connection: PostgresConnection) throws {
        let tags = properties.tags ?? .none
        // The row is locked first, so a concurrent change counts what this one stored.
        let tagsBefore: Int = tags.assignsKeys
            ? try TagBound.lockedCount("users WHERE id = \(userID)", in: connection)
            : 0
        let updated = try connection.query("""
            UPDATE users
            SET tags = (tags || \(tags.setJSON)::jsonb) - \(tags.removed)::text[],
                language = COALESCE(\(properties.language)::text, language),
                timezone_id = COALESCE(\(properties.timezoneID)::text, timezone_id),
                country = COALESCE(\(properties.country)::text, country),
                latitude = COALESCE(\(properties.latitude)::float8, latitude),
                longitude = COALESCE(\(properties.longitude)::float8, longitude),
                first_active = COALESCE(\(properties.firstActive)::bigint, first_active),
                last_active = COALESCE(\(properties.lastActive)::bigint, last_active),
                updated_at = to_timestamp(\(now))
            WHERE id = \(userID)
            RETURNING \(TagBound.count)
            """)
        if tags.assignsKeys, let row = updated.first {
            try TagBound.check(before: tagsBefore, after: try row.decode("tag_count"), holder: .user)
        }
        if !tags.isEmpty {
            try applyTagsToDevices(tags, userID: userID, appID: appID, tenantID: tenantID, now: now, in: connection)
        }
    }

    /// Merges a user's tag changes into the tags of its live devices (those carrying its
    /// `external_id`), each within the devices' bound.
    private static func applyTagsToDevices(_ tags: TagChanges, userID: String, appID: String, tenantID: String?, now: Double,
                                           in connection: PostgresConnection) throws {
        guard let externalID = try aliases(userID: userID, in: connection)[AliasLabel.externalID] else { return }
        let devices: PostgresQuery = """
            app_id = \(appID) AND external_id = \(externalID) AND retired_at IS NULL
            AND (\(tenantID)::text IS NULL OR tenant_id = \(tenantID)::text)
            """
        var before: [String: Int] = [:]
        if tags.assignsKeys {
            // Locked in id order, so two such writers cannot deadlock each other.
            for row in try connection.query("SELECT id, \(TagBound.count) FROM subscriptions WHERE \(devices) ORDER BY id FOR UPDATE") {
                before[try row.decode("id")] = try row.decode("tag_count")
            }
        }
        let updated = try connection.query("""
            UPDATE subscriptions
            SET tags = (tags || \(tags.setJSON)::jsonb) - \(tags.removed)::text[], updated_at = to_timestamp(\(now))
            WHERE \(devices)
            RETURNING id, \(TagBound.count)
            """)
        guard tags.assignsKeys else { return }
        for row in updated {
            let id: String = try row.decode("id")
            try TagBound.check(before: before[id] ?? 0, after: try row.decode("tag_count"), holder: .device)
        }
    }

    /// Adds the deltas to the user's totals; purchases are appended, the newest
    /// `keptPurchases` kept, and their amount × count added to `amount_spent`.
    private static func add(_ deltas: UserDeltas, userID: String, in connection: PostgresConnection) throws {
        guard deltas != UserDeltas() else { return }
        let purchases = JSONValue.array(deltas.purchases.map { purchase in
            ["sku": .string(purchase.sku), "amount": .string(purchase.amount), "iso": .string(purchase.iso),
             "count": .int(purchase.count)]
        }).serialized
        // Totals saturate far below bigint's end, so no run of requests can overflow them.
        try connection.query("""
            UPDATE users
            SET session_count = CASE WHEN \(deltas.sessionCount)::bigint IS NULL THEN session_count
                                     ELSE LEAST(COALESCE(session_count, 0) + \(deltas.sessionCount)::bigint, \(Self.maxTotal)::bigint) END,
                session_time = CASE WHEN \(deltas.sessionTime)::bigint IS NULL THEN session_time
                                    ELSE LEAST(COALESCE(session_time, 0) + \(deltas.sessionTime)::bigint, \(Self.maxTotal)::bigint) END,
                amount_spent = CASE WHEN jsonb_array_length(\(purchases)::jsonb) = 0 THEN amount_spent
                                    ELSE COALESCE(amount_spent, 0) + (SELECT sum((p ->> 'amount')::numeric * (p ->> 'count')::numeric)
                                                                      FROM jsonb_array_elements(\(purchases)::jsonb) p) END,
                purchases = CASE WHEN jsonb_array_length(\(purchases)::jsonb) = 0 THEN purchases
                                 ELSE (SELECT jsonb_agg(kept.p ORDER BY kept.n)
                                       FROM (SELECT p, n FROM jsonb_array_elements(COALESCE(purchases, '[]'::jsonb) || \(purchases)::jsonb)
                                                              WITH ORDINALITY AS t(p, n)
                                             ORDER BY n DESC LIMIT \(Self.keptPurchases)) kept) END
            WHERE id = \(userID)
            """)
    }

    /// 2^53 − 1: the largest integer a JSON client reads exactly.
    static let maxTotal: Int64 = 9_007_199_254_740_991
}
