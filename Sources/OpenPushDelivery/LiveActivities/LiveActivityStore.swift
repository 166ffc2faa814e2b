import OpenPushCore
package import Postgres

/// Why a Live Activity row stopped being selectable.
package enum LiveActivityEndReason: String, Sendable {
    case device, remote, deadToken = "dead_token", retired
}

/// What registering an update token did.
package struct LiveActivityRegistration: Sendable, Equatable {
    package var id: String
    package var created: Bool
    /// The row's type after the registration (a refresh keeps a type it had).
    package var activityType: String?
    package var startedAt: Double
    package var staleAt: Double
}

/// The `live_activities` table: one row per (app, device, activity id), kept after it ends.
package enum LiveActivityStore {
    /// Registers or refreshes an update token. A refresh replaces the token, fills a blank
    /// type and clears a previous end, but never moves `started_at` or `stale_at`, so a token
    /// rotation cannot extend the window.
    package static func register(appID: String, subscriptionID: String, activityID: String, activityType: String?,
                                updateToken: String, requestedStaleAt: Double?, now: Double,
                                in connection: PostgresConnection) throws -> LiveActivityRegistration {
        let id = Identifier.make(prefix: "lact", now: now, random: KeyMaterial.identifierEntropy())
        let staleAt = LiveActivityWindow.staleAt(requested: requestedStaleAt, startedAt: now)
        let row = try connection.query("""
            INSERT INTO live_activities AS la (id, app_id, subscription_id, activity_id, activity_type, update_token,
                                               started_at, stale_at, created_at, updated_at)
            VALUES (\(id), \(appID), \(subscriptionID), \(activityID), \(activityType), \(updateToken),
                    to_timestamp(\(now)), to_timestamp(\(staleAt)), to_timestamp(\(now)), to_timestamp(\(now)))
            ON CONFLICT (app_id, subscription_id, activity_id) DO UPDATE SET
                update_token = EXCLUDED.update_token,
                activity_type = COALESCE(NULLIF(la.activity_type, ''), EXCLUDED.activity_type),
                ended_at = NULL,
                ended_reason = NULL,
                updated_at = EXCLUDED.updated_at
            RETURNING la.id, (la.xmax = 0) AS created, la.activity_type,
                      extract(epoch FROM la.started_at)::float8 AS started_at,
                      extract(epoch FROM la.stale_at)::float8 AS stale_at
            """)[0]
        return LiveActivityRegistration(id: try row.decode("id"), created: try row.decode("created"),
                                        activityType: try row.decode("activity_type"), startedAt: try row.decode("started_at"), staleAt: try row.decode("stale_at"))
    }

    /// Whether a device other than `subscriptionID` holds `activityID` in this app (shared demo
    /// apps refuse such a registration: an activity id is not a capability).
    package static func isHeldByAnotherDevice(appID: String, subscriptionID: String, activityID: String,
                                             in connection: PostgresConnection) throws -> Bool {
        try !connection.query("""
            SELECT 1 FROM live_activities
            WHERE app_id = \(appID) AND activity_id = \(activityID) AND subscription_id <> \(subscriptionID)
            LIMIT 1
            """).isEmpty
    }

    /// Stamps one device's row ended, keeping the first end time. False when the device has no
    /// row by that id. A row that was still open appends `live_activity.ended`.
    package static func end(appID: String, subscriptionID: String, activityID: String, reason: LiveActivityEndReason,
                           now: Double, in connection: PostgresConnection) throws -> Bool {
        let rows = try connection.query("""
            UPDATE live_activities la
            SET ended_at = COALESCE(la.ended_at, to_timestamp(\(now))),
                ended_reason = COALESCE(la.ended_reason, \(reason.rawValue)),
                updated_at = to_timestamp(\(now))
            FROM (SELECT id, ended_at IS NULL AS was_open FROM live_activities
                  WHERE app_id = \(appID) AND subscription_id = \(subscriptionID) AND activity_id = \(activityID)
                  FOR UPDATE) AS old
            WHERE la.id = old.id
            RETURNING la.app_id, la.subscription_id, la.activity_id, old.was_open
            """)
        try LiveActivityEvents.appendEnded(rows.filter { (try? $0.decode("was_open", as: Bool.self)) == true },
                                           cause: reason, in: connection)
        return !rows.isEmpty
    }

    /// APNs rejected this row's update token: the activity ends, the device stays reachable.
    @discardableResult
    package static func endForDeadToken(rowID: String, registeredBefore invalidSince: Double? = nil, now: Double,
                                       in connection: PostgresConnection) throws -> Bool {
        try endedForDeadToken(rowID: rowID, registeredBefore: invalidSince, now: now, in: connection) != nil
    }

    /// `endForDeadToken`, returning the ended row (app, device, activity id): nil when it had
    /// ended already or was registered again since APNs learned the token was dead.
    static func endedForDeadToken(rowID: String, registeredBefore invalidSince: Double? = nil, now: Double,
                                  in connection: PostgresConnection) throws -> (appID: String, subscriptionID: String, activityID: String)? {
        let rows = try connection.query("""
            UPDATE live_activities
            SET ended_at = to_timestamp(\(now)), ended_reason = \(LiveActivityEndReason.deadToken.rawValue),
                updated_at = to_timestamp(\(now))
            WHERE id = \(rowID) AND ended_at IS NULL AND \(TokenDeath.registeredBefore("updated_at", invalidSince))
            RETURNING app_id, subscription_id, activity_id
            """)
        try LiveActivityEvents.appendEnded(Array(rows), cause: .deadToken, in: connection)
        return try rows.first.map { (try $0.decode("app_id"), try $0.decode("subscription_id"), try $0.decode("activity_id")) }
    }

    /// A retired or superseded subscription closes every open activity it holds.
    @discardableResult
    package static func closeAll(subscriptionID: String, now: Double, in connection: PostgresConnection) throws -> Int {
        let rows = try connection.query("""
            UPDATE live_activities
            SET ended_at = to_timestamp(\(now)), ended_reason = \(LiveActivityEndReason.retired.rawValue),
                updated_at = to_timestamp(\(now))
            WHERE subscription_id = \(subscriptionID) AND ended_at IS NULL
            RETURNING app_id, subscription_id, activity_id
            """)
        try LiveActivityEvents.appendEnded(Array(rows), cause: .retired, in: connection)
        return rows.count
    }
}
